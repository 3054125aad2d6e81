#include "observability/hami_collector.hpp"

#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>
#include <utility>

namespace hami::observability {
namespace {

constexpr double kBytesPerMiB = 1048576.0;
constexpr double kNormalizedCoreLimit = 100.0;

double bytes(int64_t mib) {
  return static_cast<double>(mib) * kBytesPerMiB;
}

// HAMi's normalizeAMDCoreMetrics, for every vendor that counts cores:
// compute units → percent of the card.
std::pair<double, double> core_ratios(bool cores_count, int64_t total, int64_t allocated) {
  if (!cores_count || total <= 0)
    return {static_cast<double>(total), static_cast<double>(allocated)};
  return {kNormalizedCoreLimit, std::ceil(static_cast<double>(allocated) /
                                          static_cast<double>(total) * kNormalizedCoreLimit)};
}

MetricFamily family(std::string name, std::string help, std::vector<std::string> labels) {
  MetricFamily f;
  f.name = std::move(name);
  f.help = std::move(help);
  f.type = MetricType::gauge;
  f.label_names = std::move(labels);
  return f;
}

struct Families {
  MetricFamily memory_limit =
      family("hami_gpu_memory_limit_bytes", "Device memory limit for a certain GPU",
             {"node", "device_uuid", "device_index", "device_type"});
  MetricFamily core_limit =
      family("hami_gpu_core_limit_ratio", "Device core limit for a certain GPU",
             {"node", "device_uuid", "device_index", "device_type"});
  MetricFamily memory_allocated =
      family("hami_gpu_memory_allocated_bytes", "Device memory allocated for a certain GPU",
             {"node", "device_uuid", "device_index", "device_cores", "device_type"});
  MetricFamily shared = family("hami_gpu_shared_count", "Number of containers sharing this GPU",
                               {"node", "device_uuid", "device_index", "device_type"});
  MetricFamily core_allocated =
      family("hami_gpu_core_allocated_ratio", "Device core allocated for a certain GPU",
             {"node", "device_uuid", "device_index", "device_type"});
  MetricFamily overview = family("hami_node_gpu_overview", "GPU overview on a certain node",
                                 {"node", "device_uuid", "device_index", "device_cores",
                                  "device_memory_limit", "device_type"});
  MetricFamily memory_ratio = family("hami_node_gpu_memory_allocated_ratio",
                                     "GPU Memory Allocated Percentage on a certain GPU",
                                     {"node", "device_uuid", "device_index", "device_type"});
  MetricFamily quota_used =
      family("hami_resource_quota_used", "resourcequota usage for a certain device",
             {"namespace", "quota_name", "limit"});
  MetricFamily quota_limit =
      family("hami_resource_quota_limit", "resourcequota limit for a certain device",
             {"namespace", "quota_name"});
  MetricFamily vgpu_memory =
      family("hami_vgpu_memory_allocated_bytes", "vGPU memory allocated from a container",
             {"namespace", "node", "pod", "container_index", "device_uuid"});
  MetricFamily vgpu_core =
      family("hami_vgpu_core_allocated_ratio", "vGPU core allocated from a container",
             {"namespace", "node", "pod", "container_index", "device_uuid"});
};

struct LegacyFamilies {
  MetricFamily memory_limit =
      family("GPUDeviceMemoryLimit", "Device memory limit for a certain GPU",
             {"nodeid", "deviceuuid", "deviceidx", "devicetype"});
  MetricFamily core_limit =
      family("GPUDeviceCoreLimit", "Device memory core limit for a certain GPU",
             {"nodeid", "deviceuuid", "deviceidx", "devicetype"});
  MetricFamily memory_allocated =
      family("GPUDeviceMemoryAllocated", "Device memory allocated for a certain GPU",
             {"nodeid", "deviceuuid", "deviceidx", "devicecores", "devicetype"});
  MetricFamily shared = family("GPUDeviceSharedNum", "Number of containers sharing this GPU",
                               {"nodeid", "deviceuuid", "deviceidx", "devicetype"});
  MetricFamily core_allocated =
      family("GPUDeviceCoreAllocated", "Device core allocated for a certain GPU",
             {"nodeid", "deviceuuid", "deviceidx", "devicetype"});
  MetricFamily overview = family(
      "nodeGPUOverview", "GPU overview on a certain node",
      {"nodeid", "deviceuuid", "deviceidx", "devicecores", "devicememorylimit", "devicetype"});
  MetricFamily memory_ratio =
      family("nodeGPUMemoryPercentage", "GPU Memory Allocated Percentage on a certain GPU",
             {"nodeid", "deviceuuid", "deviceidx", "devicetype"});
  MetricFamily quota_used = family("QuotaUsed", "resourcequota usage for a certain device",
                                   {"quotanamespace", "quotaName", "limit"});
  MetricFamily vgpu_memory =
      family("vGPUMemoryAllocated", "vGPU memory allocated from a container",
             {"podnamespace", "nodename", "podname", "containeridx", "deviceuuid"});
  MetricFamily vgpu_core =
      family("vGPUCoreAllocated", "vGPU core allocated from a container",
             {"podnamespace", "nodename", "podname", "containeridx", "deviceuuid"});
};

// The vendors' partition families (ClusterUsage::partition_families), by
// index; nullopt for a legacy family while the legacy names are off.
// Series carry the device labels first, in the form of the family's
// generation, then the family's own.
struct PartitionFamilies {
  std::vector<std::optional<MetricFamily>> families;
  std::vector<size_t> value_counts;  // labels of each family after the device labels

  PartitionFamilies(const std::vector<PartitionFamily>& declared, bool legacy_names) {
    for (const PartitionFamily& p : declared) {
      value_counts.push_back(p.labels.size());
      if (p.legacy && !legacy_names) {
        families.emplace_back();
        continue;
      }
      std::vector<std::string> labels =
          p.legacy ? std::vector<std::string>{"nodeid", "deviceuuid", "deviceidx"}
                   : std::vector<std::string>{"node", "device_uuid", "device_index"};
      labels.insert(labels.end(), p.labels.begin(), p.labels.end());
      families.emplace_back(family(p.name, p.help, std::move(labels)));
    }
  }

  // A partition naming no family, or with a value count other than its
  // family's labels, is skipped.
  void add(const std::string& node, const DeviceUsage& d, const std::string& index,
           const PartitionUsage& p) {
    if (p.family >= families.size() || !families[p.family] ||
        p.values.size() != value_counts[p.family]) {
      return;
    }
    std::vector<std::string> values{node, d.uuid, index};
    values.insert(values.end(), p.values.begin(), p.values.end());
    families[p.family]->add(std::move(values), 1);
  }

  // The families of one generation (legacy or not), in declaration order.
  void take(bool legacy, const std::vector<PartitionFamily>& declared,
            std::vector<MetricFamily>& out) {
    for (size_t i = 0; i < families.size(); ++i) {
      if (families[i] && declared[i].legacy == legacy)
        out.push_back(std::move(*families[i]));
    }
  }
};

void emit_device(const std::string& node, const DeviceUsage& d, Families& f, LegacyFamilies* legacy,
                 PartitionFamilies& partitions) {
  const std::string index = std::to_string(d.index);
  const std::string cores_total = std::to_string(d.cores_total);
  const auto [core_limit, core_allocated] = core_ratios(d.cores_count, d.cores_total, d.cores_used);
  for (const PartitionUsage& p : d.partitions)
    partitions.add(node, d, index, p);
  f.memory_limit.add({node, d.uuid, index, d.type}, bytes(d.memory_total_mib));
  f.core_limit.add({node, d.uuid, index, d.type}, core_limit);
  f.memory_allocated.add({node, d.uuid, index, cores_total, d.type}, bytes(d.memory_used_mib));
  f.shared.add({node, d.uuid, index, d.type}, static_cast<double>(d.slots_used));
  f.core_allocated.add({node, d.uuid, index, d.type}, core_allocated);
  f.overview.add({node, d.uuid, index, cores_total, std::to_string(d.memory_total_mib), d.type},
                 bytes(d.memory_used_mib));
  const double ratio = d.memory_total_mib > 0 ? static_cast<double>(d.memory_used_mib) /
                                                    static_cast<double>(d.memory_total_mib)
                                              : 0;
  if (d.memory_total_mib > 0)
    f.memory_ratio.add({node, d.uuid, index, d.type}, ratio);
  if (legacy == nullptr)
    return;
  legacy->memory_limit.add({node, d.uuid, index, d.type}, bytes(d.memory_total_mib));
  legacy->core_limit.add({node, d.uuid, index, d.type}, static_cast<double>(d.cores_total));
  legacy->memory_allocated.add({node, d.uuid, index, cores_total, d.type},
                               bytes(d.memory_used_mib));
  legacy->shared.add({node, d.uuid, index, d.type}, static_cast<double>(d.slots_used));
  legacy->core_allocated.add({node, d.uuid, index, d.type}, static_cast<double>(d.cores_used));
  legacy->overview.add(
      {node, d.uuid, index, cores_total, std::to_string(d.memory_total_mib), d.type},
      bytes(d.memory_used_mib));
  if (d.memory_total_mib > 0)
    legacy->memory_ratio.add({node, d.uuid, index, d.type}, ratio);
}

}  // namespace

HamiClusterCollector::HamiClusterCollector(std::shared_ptr<const ClusterUsageSource> source,
                                           HamiMetricsOptions options)
    : source_(std::move(source)), options_(options) {
  if (!source_)
    throw std::invalid_argument("HamiClusterCollector: null usage source");
}

void HamiClusterCollector::collect(std::vector<MetricFamily>& out) const {
  auto produced = families(source_->usage());
  std::move(produced.begin(), produced.end(), std::back_inserter(out));
}

std::vector<MetricFamily> HamiClusterCollector::families(const ClusterUsage& usage) const {
  Families f;
  std::optional<LegacyFamilies> legacy;
  if (options_.legacy_metrics)
    legacy.emplace();
  LegacyFamilies* old = legacy ? &*legacy : nullptr;
  PartitionFamilies partitions(usage.partition_families, options_.legacy_metrics);

  // (node, device uuid) → device, for the per-container core ratios.
  std::map<std::pair<std::string_view, std::string_view>, const DeviceUsage*> devices;
  for (const NodeUsage& node : usage.nodes) {
    for (const DeviceUsage& d : node.devices) {
      emit_device(node.name, d, f, old, partitions);
      devices.emplace(std::pair<std::string_view, std::string_view>(node.name, d.uuid), &d);
    }
  }

  for (const QuotaUsage& q : usage.quotas) {
    const std::string limit = std::to_string(q.limit.value_or(0));
    f.quota_used.add({q.namespace_, q.resource, limit}, static_cast<double>(q.used));
    if (q.limit)
      f.quota_limit.add({q.namespace_, q.resource}, static_cast<double>(*q.limit));
    if (old != nullptr)
      old->quota_used.add({q.namespace_, q.resource, limit}, static_cast<double>(q.used));
  }

  for (const PodUsage& pod : usage.pods) {
    // A container may hold several allocations on one device (NVIDIA MIG
    // instances of one GPU): one series per container and device, their sum.
    std::map<std::pair<uint32_t, std::string_view>, std::pair<int64_t, int64_t>> held;
    for (const ContainerDeviceUsage& c : pod.devices) {
      // HAMi skips allocations without a device id.
      if (c.device_uuid.empty())
        continue;
      auto& [memory, cores] = held[{c.container_index, c.device_uuid}];
      memory += c.memory_mib;
      cores += c.cores;
    }
    for (const auto& [key, sums] : held) {
      const auto& [container, uuid] = key;
      const auto& [memory, raw_cores] = sums;
      const std::string index = std::to_string(container);
      const std::string device_uuid(uuid);
      double cores = static_cast<double>(raw_cores);
      const auto device = devices.find({pod.node, uuid});
      if (device != devices.end())
        cores =
            core_ratios(device->second->cores_count, device->second->cores_total, raw_cores).second;
      f.vgpu_memory.add({pod.namespace_, pod.node, pod.name, index, device_uuid}, bytes(memory));
      f.vgpu_core.add({pod.namespace_, pod.node, pod.name, index, device_uuid}, cores);
      if (old != nullptr) {
        old->vgpu_memory.add({pod.namespace_, pod.node, pod.name, index, device_uuid},
                             bytes(memory));
        old->vgpu_core.add({pod.namespace_, pod.node, pod.name, index, device_uuid},
                           static_cast<double>(raw_cores));
      }
    }
  }

  std::vector<MetricFamily> out;
  for (MetricFamily* m : {&f.memory_limit, &f.core_limit, &f.memory_allocated, &f.shared,
                          &f.core_allocated, &f.overview, &f.memory_ratio}) {
    out.push_back(std::move(*m));
  }
  partitions.take(false, usage.partition_families, out);
  for (MetricFamily* m : {&f.quota_used, &f.quota_limit, &f.vgpu_memory, &f.vgpu_core})
    out.push_back(std::move(*m));
  if (old != nullptr) {
    for (MetricFamily* m :
         {&old->memory_limit, &old->core_limit, &old->memory_allocated, &old->shared,
          &old->core_allocated, &old->overview, &old->memory_ratio}) {
      out.push_back(std::move(*m));
    }
    partitions.take(true, usage.partition_families, out);
    for (MetricFamily* m : {&old->quota_used, &old->vgpu_memory, &old->vgpu_core})
      out.push_back(std::move(*m));
  }
  return out;
}

void add_hami_cluster_metrics(MetricsRegistry& registry,
                              std::shared_ptr<const ClusterUsageSource> source,
                              HamiMetricsOptions options) {
  registry.add_collector(std::make_shared<HamiClusterCollector>(std::move(source), options),
                         {{"zone", std::string(kHamiZone)}});
}

}  // namespace hami::observability
