// EventCorrelator: what client-go's tools/record EventCorrelator makes of a
// core v1 Event before it is written; no I/O. In order:
//   - aggregator: Events of one source, object, type and reason with 10
//     different messages within 10 minutes of each other become one Event
//     "(combined from similar events): <latest message>" (counted like a
//     repeat from then on);
//   - logger: a repeat of an Event seen before (same source, object, type,
//     reason and message, or the same aggregate) is its count + 1, to be
//     patched onto the Event of the first one (its name, firstTimestamp);
//   - spam filter: a token bucket per source and object (and type): 25
//     Events at once, then one per 5 minutes; an Event beyond that is
//     skipped, though the aggregator and logger have counted it.
// Each of the three remembers at most 4096 keys (least recently used
// forgotten), client-go's sizes.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>

#include "cluster/cluster_state.hpp"
#include "kube/lru_map.hpp"

namespace hami::kube {

struct EventCorrelatorLimits {
  size_t cache_size = 4096;          // client-go maxLruCacheEntries
  size_t aggregate_max_events = 10;  // defaultAggregateMaxEvents
  std::chrono::seconds aggregate_interval{600};
  double spam_burst = 25;       // defaultSpamBurst
  double spam_qps = 1.0 / 300;  // defaultSpamQPS
};

struct CorrelatedEvent {
  using Time = std::chrono::system_clock::time_point;
  bool skip = false;     // dropped by the spam filter: write nothing
  cluster::Event event;  // the message is the aggregate's when aggregated
  std::string name;      // metadata.name of the Event to create or patch
  int32_t count = 1;     // > 1: patch the Event `name` (count, lastTimestamp, message)
  Time first_timestamp;
  Time last_timestamp;
};

class EventCorrelator {
 public:
  using Time = CorrelatedEvent::Time;

  explicit EventCorrelator(EventCorrelatorLimits limits = {});

  // `component` is the event's source.component, `instance` its
  // reportingInstance; `now` when it was reported.
  CorrelatedEvent correlate(const cluster::Event& event, std::string_view component,
                            std::string_view instance, Time now);

 private:
  struct Aggregate {
    std::deque<std::string> messages;  // distinct, oldest first
    Time last{};
  };
  struct Observation {
    int32_t count = 0;
    Time first{};
    std::string name;
  };
  struct Bucket {
    double tokens = 0;
    Time last{};
  };

  bool allow(const std::string& key, Time now);

  EventCorrelatorLimits limits_;
  LruMap<std::string, Aggregate> aggregates_;
  LruMap<std::string, Observation> observations_;
  LruMap<std::string, Bucket> buckets_;
};

}  // namespace hami::kube
