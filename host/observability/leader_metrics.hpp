// The leader and sync gauges, read at scrape time:
//   hami_scheduler_is_leader      1 while this process is the leader, else 0
//   hami_scheduler_cache_synced   1 while the cluster view may be scheduled
//                                 on (caches synced and, when leading, a
//                                 registration pass of this leadership term
//                                 done), else 0
// No labels, not wrapped with zone="vGPU" (they describe this process).
#pragma once

#include <functional>

#include "observability/metrics_registry.hpp"

namespace hami::observability {

inline constexpr const char* kIsLeaderMetric = "hami_scheduler_is_leader";
inline constexpr const char* kCacheSyncedMetric = "hami_scheduler_cache_synced";

struct LeaderStateSource {
  std::function<bool()> is_leader;  // required
  std::function<bool()> synced;     // required
};

// Registers the two gauges over `source` (its functions must stay callable
// for the registry's life). Throws std::invalid_argument when a function is
// empty.
void add_leader_metrics(MetricsRegistry& registry, LeaderStateSource source);

}  // namespace hami::observability
