#include "observability/host_metrics.hpp"

#include <memory>
#include <stdexcept>

#include "observability/ledger_usage_source.hpp"

namespace hami::observability {

HostMetrics::HostMetrics(HostMetricsOptions options)
    : options_(std::move(options)),
      requests_(registry_),
      scheduler_(registry_),
      plugins_(registry_) {
  add_build_info(registry_, options_.build);
}

void HostMetrics::add_cluster(const scheduling::Scheduler& scheduler,
                              const cluster::ClusterState& cluster,
                              std::span<const host::DevicePluginHandle> devices) {
  if (cluster_added_)
    throw std::logic_error("HostMetrics::add_cluster called twice");
  cluster_added_ = true;
  add_hami_cluster_metrics(registry_,
                           std::make_shared<LedgerUsageSource>(scheduler, cluster, devices),
                           {.legacy_metrics = options_.legacy_metrics});
}

}  // namespace hami::observability
