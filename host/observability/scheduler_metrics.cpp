#include "observability/scheduler_metrics.hpp"

namespace hami::observability {
namespace {

std::vector<double> node_count_buckets() {
  return {0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000};
}

std::vector<double> lock_wait_buckets() {
  return {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};
}

template <class E>
size_t at(E e) {
  return static_cast<size_t>(e);
}

}  // namespace

BindResult classify_bind_error(std::string_view error) {
  if (error.empty())
    return BindResult::success;
  if (error.find("node lock contention") != std::string_view::npos)
    return BindResult::lock_contention;
  if (error.find(" does not fit on node ") != std::string_view::npos)
    return BindResult::no_fit;
  if (error.ends_with("not found"))
    return BindResult::not_found;
  return BindResult::error;
}

size_t SchedulerMetrics::resource_index(std::string_view resource) {
  for (size_t i = 0; i + 1 < kResources.size(); ++i) {
    if (kResources[i] == resource)
      return i;
  }
  return kResources.size() - 1;
}

SchedulerMetrics::SchedulerMetrics(MetricsRegistry& registry)
    : candidates_(registry
                      .histogram("hami_scheduler_filter_candidate_nodes",
                                 "Candidate nodes per extender filter call.", {},
                                 node_count_buckets())
                      .labels({})),
      feasible_(registry
                    .histogram("hami_scheduler_filter_feasible_nodes",
                               "Nodes the pod fits on per extender filter call.", {},
                               node_count_buckets())
                    .labels({})),
      cache_entries_(registry
                         .gauge("hami_scheduler_extender_node_cache_entries",
                                "Node objects the extender keeps to reuse in full-Nodes calls.", {})
                         .labels({})),
      cache_bytes_(registry
                       .gauge("hami_scheduler_extender_node_cache_bytes",
                              "Memory the extender's node cache counts against "
                              "server.extenderNodeCacheBytes.",
                              {})
                       .labels({})) {
  auto& filter = registry.counter("hami_scheduler_filter_total",
                                  "Extender filter calls by outcome.", {"outcome"});
  filter_ = {&filter.labels({"fit"}), &filter.labels({"no_fit"}), &filter.labels({"passthrough"}),
             &filter.labels({"error"})};
  auto& bind =
      registry.counter("hami_scheduler_bind_total", "Extender bind calls by outcome.", {"outcome"});
  bind_ = {&bind.labels({"success"}), &bind.labels({"lock_contention"}), &bind.labels({"no_fit"}),
           &bind.labels({"not_found"}), &bind.labels({"error"})};
  auto& lock = registry.histogram("hami_scheduler_node_lock_wait_seconds",
                                  "Time spent taking a node lock, by outcome.", {"outcome"},
                                  lock_wait_buckets());
  lock_wait_ = {&lock.labels({"acquired"}), &lock.labels({"contention"}), &lock.labels({"error"})};
  auto& admission = registry.counter("hami_scheduler_admission_decisions_total",
                                     "Admission webhook decisions by result.", {"result"});
  admission_ = {&admission.labels({"allowed"}), &admission.labels({"skipped"}),
                &admission.labels({"denied"}), &admission.labels({"error"})};
  auto& reconnects =
      registry.counter("hami_scheduler_watch_reconnects_total",
                       "Cluster watch streams re-established, by resource.", {"resource"});
  auto& relists = registry.counter("hami_scheduler_watch_relists_total",
                                   "Full relists of a watched resource (after 410 Gone or a "
                                   "broken stream), by resource.",
                                   {"resource"});
  for (size_t i = 0; i < kResources.size(); ++i) {
    reconnects_[i] = &reconnects.labels({kResources[i]});
    relists_[i] = &relists.labels({kResources[i]});
  }
  auto& nodes = registry.counter("hami_scheduler_extender_nodes_total",
                                 "Node objects received in full-Nodes extender calls, by where "
                                 "their model came from: the node cache or a parse.",
                                 {"source"});
  full_nodes_ = {&nodes.labels({"cached"}), &nodes.labels({"parsed"})};
}

void SchedulerMetrics::record_full_nodes(size_t cached, size_t parsed, size_t cache_entries,
                                         size_t cache_bytes) {
  full_nodes_[0]->inc(cached);
  full_nodes_[1]->inc(parsed);
  cache_entries_.set(static_cast<double>(cache_entries));
  cache_bytes_.set(static_cast<double>(cache_bytes));
}

void SchedulerMetrics::record_filter(FilterResult result, size_t candidates, size_t feasible) {
  filter_[at(result)]->inc();
  candidates_.observe(static_cast<double>(candidates));
  feasible_.observe(static_cast<double>(feasible));
}

void SchedulerMetrics::record_filter(const scheduling::FilterOutcome& outcome, size_t candidates) {
  if (!outcome.error.empty()) {
    record_filter(FilterResult::error, candidates, 0);
  } else if (outcome.passthrough) {
    record_filter(FilterResult::passthrough, candidates, candidates);
  } else {
    record_filter(outcome.fit.empty() ? FilterResult::no_fit : FilterResult::fit, candidates,
                  outcome.fit.size());
  }
}

void SchedulerMetrics::record_bind(BindResult result) {
  bind_[at(result)]->inc();
}

void SchedulerMetrics::record_bind(std::string_view error) {
  record_bind(classify_bind_error(error));
}

void SchedulerMetrics::record_node_lock(LockResult result, std::chrono::nanoseconds waited) {
  lock_wait_[at(result)]->observe(std::chrono::duration<double>(waited).count());
}

void SchedulerMetrics::record_admission(AdmissionResult result) {
  admission_[at(result)]->inc();
}

void SchedulerMetrics::record_watch_reconnect(std::string_view resource) {
  reconnects_[resource_index(resource)]->inc();
}

void SchedulerMetrics::record_relist(std::string_view resource) {
  relists_[resource_index(resource)]->inc();
}

std::function<void(LockResult, std::chrono::nanoseconds)> SchedulerMetrics::node_lock_observer() {
  return [this](LockResult result, std::chrono::nanoseconds waited) {
    record_node_lock(result, waited);
  };
}

}  // namespace hami::observability
