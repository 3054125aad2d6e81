// EventRecorder: decides which writes the Events the scheduler reports turn
// into, and makes them, as client-go's recorders do for each API:
//   - events.k8s.io/v1 (kube/event_series.hpp): repeats of an Event become
//     one Event with a series, patched rarely (client-go tools/events);
//   - core v1 (kube/core_event_recorder.hpp): similar Events aggregated,
//     repeats counted by patch, a per-object rate limit (client-go
//     tools/record's EventCorrelator).
// A recorder is used by one thread at a time (EventSink's), so it keeps its
// caches without locks; every cache is bounded.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "cluster/cluster_state.hpp"

namespace hami::log {
class Logger;
}

namespace hami::kube {

class ApiClient;

using EventClock = std::function<std::chrono::system_clock::time_point()>;

class EventRecorder {
 public:
  virtual ~EventRecorder() = default;

  // Writes what `event`, reported at `when`, calls for: nothing, a create
  // or a patch. Throws (ApiError) when the write fails; the recorder's
  // state already counts the event.
  virtual void record(const cluster::Event& event, std::chrono::system_clock::time_point when) = 0;
  // Periodic upkeep (ending and refreshing series); failures are logged.
  virtual void maintain() {}
  // How often maintain() is due; zero: never.
  virtual std::chrono::milliseconds maintenance_period() const { return {}; }
};

struct EventRecorderOptions {
  bool core_v1 = false;   // true: /api/v1 Events; false: events.k8s.io/v1
  std::string component;  // reportingController / source.component when the event names none
  std::string instance;   // reportingInstance
  EventClock clock;       // empty: the system clock
  // core v1: the involvedObject.resourceVersion to write ("" leaves it out).
  std::function<std::string(const cluster::Event&)> object_version;
  const log::Logger* logger = nullptr;  // must outlive the recorder
};

// The recorder of the API options.core_v1 names.
std::unique_ptr<EventRecorder> make_event_recorder(std::shared_ptr<ApiClient> client,
                                                   EventRecorderOptions options);

}  // namespace hami::kube
