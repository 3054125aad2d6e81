// HAMi's scheduler metrics (reference hami-v2.10 §1.7), computed at scrape
// time from a ClusterUsageSource, with HAMi's names, labels and units so
// existing dashboards keep working:
//
//   hami_gpu_memory_limit_bytes, hami_gpu_core_limit_ratio,
//   hami_gpu_memory_allocated_bytes, hami_gpu_shared_count,
//   hami_gpu_core_allocated_ratio, hami_node_gpu_overview,
//   hami_node_gpu_memory_allocated_ratio,
//   hami_resource_quota_used, hami_resource_quota_limit,
//   hami_vgpu_memory_allocated_bytes, hami_vgpu_core_allocated_ratio
//
// and one info family per vendor partition family (the usage's
// partition_families, e.g. hami_node_gpu_mig_instance_info): labels node,
// device_uuid, device_index, then the family's own; value 1 per partition.
//
// Memory is exported in bytes (MiB × 1048576); the device_memory_limit
// label stays in MiB. Core ratios of devices whose vendor counts cores
// (cores_count) are normalised from compute units to percent: limit 100,
// allocated ceil(used / total × 100). The memory ratio is used/total,
// omitted when total ≤ 0. With `legacy_metrics` the old camel-case names
// are emitted as well, with their old label names and raw core values,
// and so are the legacy partition families (labels nodeid, deviceuuid,
// deviceidx, then the family's own).
//
// Deliberate difference (HAMi bug 7.7#9): container_index is the
// container's real position, init containers first, instead of always 0.
//
// Register with add_hami_cluster_metrics so every series carries
// zone="vGPU", as HAMi's collector does.
#pragma once

#include <memory>
#include <string_view>

#include "observability/cluster_usage_source.hpp"
#include "observability/collector.hpp"
#include "observability/metrics_registry.hpp"

namespace hami::observability {

inline constexpr std::string_view kHamiZone = "vGPU";

struct HamiMetricsOptions {
  // Also emit GPUDeviceMemoryLimit, GPUDeviceCoreLimit, … (HAMi's
  // --legacy-metrics).
  bool legacy_metrics = false;
};

class HamiClusterCollector final : public Collector {
 public:
  explicit HamiClusterCollector(std::shared_ptr<const ClusterUsageSource> source,
                                HamiMetricsOptions options = {});

  void collect(std::vector<MetricFamily>& out) const override;

  // The families for one usage copy (what collect() appends).
  std::vector<MetricFamily> families(const ClusterUsage& usage) const;

 private:
  std::shared_ptr<const ClusterUsageSource> source_;
  HamiMetricsOptions options_;
};

// Adds a HamiClusterCollector over `source` to `registry` with the
// constant label zone="vGPU".
void add_hami_cluster_metrics(MetricsRegistry& registry,
                              std::shared_ptr<const ClusterUsageSource> source,
                              HamiMetricsOptions options = {});

}  // namespace hami::observability
