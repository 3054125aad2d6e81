// CoreEventRecorder: core v1 Events (/api/v1/namespaces/{ns}/events) as
// client-go's tools/record writes them, through an EventCorrelator
// (kube/event_correlator.hpp): a first Event is created (POST, count 1); a
// repeat (or a further aggregate) is a strategic merge patch of count,
// lastTimestamp and message onto the first one's Event, created again with
// the counts (POST) when the server answers 404 (its TTL ran out); an
// Event the spam filter skips is not written at all.
#pragma once

#include <cstdint>
#include <memory>

#include "kube/event_correlator.hpp"
#include "kube/event_recorder.hpp"

namespace hami::kube {

class CoreEventRecorder final : public EventRecorder {
 public:
  CoreEventRecorder(std::shared_ptr<ApiClient> client, EventRecorderOptions options,
                    EventCorrelatorLimits limits = {});

  void record(const cluster::Event& event, std::chrono::system_clock::time_point when) override;

  // Events the spam filter skipped.
  uint64_t skipped() const { return skipped_; }

 private:
  std::shared_ptr<ApiClient> client_;
  EventRecorderOptions options_;
  EventCorrelator correlator_;
  uint64_t skipped_ = 0;
};

}  // namespace hami::kube
