// EventSeriesRecorder: events.k8s.io/v1 Events as client-go's tools/events
// broadcaster writes them.
//
// Events are isomorphic when type, reason (and so action), reporting
// controller and instance and the regarding object (kind, namespace, name,
// uid) are equal; the note is not compared (the first one stays). The
// first of them is created (POST). The second turns it into a series: a
// strategic merge patch {"series":{"count":2,"lastObservedTime":…}}. Later
// ones only count, in memory. Every 30 minutes each series is patched with
// its count (the refresh); a series observed last more than 6 minutes ago
// is patched with its final count and forgotten, as is a single Event
// older than 6 minutes (a later repeat starts anew). A patch answered 404
// (the server dropped the Event: its TTL ran out) creates it again, with
// its series.
//
// At most `cache_size` Events are followed (client-go's map is only
// trimmed by the 6-minute end; the bound keeps memory flat under churn);
// the least recently observed one makes room, patched with its final
// count first when it has uncounted repeats.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "kube/event_recorder.hpp"
#include "kube/lru_map.hpp"
#include "kube/write_bodies.hpp"

namespace hami::kube {

struct EventSeriesTiming {
  std::chrono::milliseconds finish_after{std::chrono::minutes(6)};    // client-go finishTime
  std::chrono::milliseconds refresh_every{std::chrono::minutes(30)};  // client-go refreshTime
  size_t cache_size = 4096;
};

class EventSeriesRecorder final : public EventRecorder {
 public:
  EventSeriesRecorder(std::shared_ptr<ApiClient> client, EventRecorderOptions options,
                      EventSeriesTiming timing = {});

  void record(const cluster::Event& event, std::chrono::system_clock::time_point when) override;
  // Ends the series gone quiet for finish_after (and forgets single Events
  // as old); when refresh_every has passed since the last refresh, patches
  // every series.
  void maintain() override;
  // finish_after: when client-go looks for ended series.
  std::chrono::milliseconds maintenance_period() const override { return timing_.finish_after; }

  size_t followed() const { return cache_.size(); }

 private:
  using Time = std::chrono::system_clock::time_point;
  struct Followed {
    cluster::Event event;
    EventStamp stamp;     // of the Event created: its name and eventTime
    int32_t count = 0;    // series.count; 0: no series yet
    int32_t written = 0;  // the count the server was last sent
    Time last_observed;
  };

  Time now() const;
  // Patches the series (404: creates the Event with it); throws on failure.
  void write_series(Followed& followed);
  // write_series, logged instead of thrown; false when the server could not
  // be reached (the series is kept for the next try).
  bool write_series_logged(Followed& followed, const char* why);
  std::string events_path(const cluster::Event& event) const;

  std::shared_ptr<ApiClient> client_;
  EventRecorderOptions options_;
  EventSeriesTiming timing_;
  LruMap<std::string, Followed> cache_;
  Time last_refresh_;
};

}  // namespace hami::kube
