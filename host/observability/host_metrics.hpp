// HostMetrics: everything a running hami-scheduler exposes on /metrics, in
// one object the application owns — the registry, hami_build_info, the
// request, scheduler-event and plugin metrics, and (once the scheduler
// exists) HAMi's cluster metrics with zone="vGPU".
//
// Wiring (see also register_metrics_routes and MetricsListener):
//   observability::HostMetrics metrics({.legacy_metrics = config.metrics.legacy});
//   metrics.plugins().record_loaded(registry);
//   metrics.add_cluster(*stack->scheduler, *stack->cluster, registry.devices());
//   observability::register_metrics_routes(*router, metrics.registry(), &logger);
// Destroy it after every server that serves it has stopped, and before the
// scheduler and cluster state it reads.
#pragma once

#include <span>

#include "cluster/cluster_state.hpp"
#include "observability/build_info.hpp"
#include "observability/hami_collector.hpp"
#include "observability/metrics_registry.hpp"
#include "observability/plugin_metrics.hpp"
#include "observability/request_metrics.hpp"
#include "observability/scheduler_metrics.hpp"
#include "plugins/device_plugin_handle.hpp"
#include "scheduling/scheduler.hpp"

namespace hami::observability {

struct HostMetricsOptions {
  // HAMi's --legacy-metrics: also the old camel-case names.
  bool legacy_metrics = false;
  BuildInfo build = this_build();
};

class HostMetrics {
 public:
  explicit HostMetrics(HostMetricsOptions options = {});
  HostMetrics(const HostMetrics&) = delete;
  HostMetrics& operator=(const HostMetrics&) = delete;

  MetricsRegistry& registry() { return registry_; }
  const MetricsRegistry& registry() const { return registry_; }
  RequestMetrics& requests() { return requests_; }
  SchedulerMetrics& scheduler() { return scheduler_; }
  PluginMetrics& plugins() { return plugins_; }

  // Adds HAMi's cluster metrics over the scheduler's ledger. Everything
  // must outlive this object. Throws std::logic_error when called twice.
  void add_cluster(const scheduling::Scheduler& scheduler, const cluster::ClusterState& cluster,
                   std::span<const host::DevicePluginHandle> devices);

 private:
  HostMetricsOptions options_;
  MetricsRegistry registry_;  // first: the others register into it
  RequestMetrics requests_;
  SchedulerMetrics scheduler_;
  PluginMetrics plugins_;
  bool cluster_added_ = false;
};

}  // namespace hami::observability
