// The scheduler's own event metrics; the extender, the admission webhook,
// the node lock and the cluster watch call these as things happen.
//
//   hami_scheduler_filter_total{outcome}        fit | no_fit | passthrough | error
//   hami_scheduler_filter_candidate_nodes        histogram of candidates per filter call
//   hami_scheduler_filter_feasible_nodes         histogram of fitting nodes per filter call
//   hami_scheduler_bind_total{outcome}           success | lock_contention | no_fit |
//                                                not_found | error
//   hami_scheduler_node_lock_wait_seconds{outcome}  time to take a node lock:
//                                                acquired | contention | error
//   hami_scheduler_admission_decisions_total{result}  allowed | skipped | denied | error
//   hami_scheduler_watch_reconnects_total{resource}   nodes | pods | resourcequotas |
//   hami_scheduler_watch_relists_total{resource}      namespaces | leases | other
//   hami_scheduler_extender_nodes_total{source}  full Node objects received: cached | parsed
//   hami_scheduler_extender_node_cache_entries   objects the extender's node cache holds
//   hami_scheduler_extender_node_cache_bytes     what it counts against its budget
//
// Every series exists from construction (at 0), so rates work from the
// first scrape, and recording never takes a lock.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <functional>
#include <string_view>

#include "observability/instruments.hpp"
#include "observability/metrics_registry.hpp"
#include "scheduling/scheduler.hpp"

namespace hami::observability {

enum class FilterResult { fit, no_fit, passthrough, error };
enum class BindResult { success, lock_contention, no_fit, not_found, error };
enum class LockResult { acquired, contention, error };
enum class AdmissionResult { allowed, skipped, denied, error };

// The outcome of Scheduler::bind from its returned text ("" = success).
BindResult classify_bind_error(std::string_view error);

class SchedulerMetrics {
 public:
  explicit SchedulerMetrics(MetricsRegistry& registry);
  SchedulerMetrics(const SchedulerMetrics&) = delete;
  SchedulerMetrics& operator=(const SchedulerMetrics&) = delete;

  void record_filter(FilterResult result, size_t candidates, size_t feasible);
  // From the Scheduler's own result: error → error, passthrough (no managed
  // resource) → passthrough with every candidate feasible, else fit/no_fit.
  void record_filter(const scheduling::FilterOutcome& outcome, size_t candidates);

  void record_bind(BindResult result);
  // classify_bind_error(error).
  void record_bind(std::string_view error);

  void record_node_lock(LockResult result, std::chrono::nanoseconds waited);
  void record_admission(AdmissionResult result);
  void record_watch_reconnect(std::string_view resource);
  void record_relist(std::string_view resource);
  // After a full-Nodes extender call: how many of its Node objects the node
  // cache supplied and how many were parsed, and what the cache holds.
  void record_full_nodes(size_t cached, size_t parsed, size_t cache_entries, size_t cache_bytes);

  // record_node_lock as a callable, for a component that must not depend
  // on this library.
  std::function<void(LockResult, std::chrono::nanoseconds)> node_lock_observer();

 private:
  static constexpr std::array<std::string_view, 6> kResources = {
      "nodes", "pods", "resourcequotas", "namespaces", "leases", "other"};
  static size_t resource_index(std::string_view resource);

  std::array<Counter*, 4> filter_{};
  Histogram& candidates_;
  Histogram& feasible_;
  std::array<Counter*, 5> bind_{};
  std::array<Histogram*, 3> lock_wait_{};
  std::array<Counter*, 4> admission_{};
  std::array<Counter*, kResources.size()> reconnects_{};
  std::array<Counter*, kResources.size()> relists_{};
  std::array<Counter*, 2> full_nodes_{};  // cached, parsed
  Gauge& cache_entries_;
  Gauge& cache_bytes_;
};

}  // namespace hami::observability
