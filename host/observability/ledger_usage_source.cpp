#include "observability/ledger_usage_source.hpp"

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "plugins/plugin_errors.hpp"
#include "scheduling/allocation.hpp"
#include "scheduling/usage_ledger.hpp"

namespace hami::observability {
namespace {

struct ChargeCopy {
  std::string uid;
  std::string namespace_;
  std::string name;
  std::string node;
  bool shrunk = false;
};

DeviceUsage device_usage(const scheduling::VendorDevices& vendor, size_t k,
                         const scheduling::DeviceUse& use, bool cores_count) {
  const hami_device& record = vendor.abi[k];
  DeviceUsage d;
  d.uuid = vendor.id(k);
  d.index = record.index;
  d.type = vendor.type(k);
  d.mode = vendor.mode(k);
  d.memory_total_mib = record.memory_mib;
  d.cores_total = record.cores;
  d.slots_used = use.used;
  d.memory_used_mib = use.memory_mib;
  d.cores_used = use.cores;
  d.cores_count = cores_count;
  return d;
}

void add_quotas(std::string_view ns, const scheduling::LedgerState& state,
                std::span<const host::DevicePluginHandle> devices, std::vector<QuotaUsage>& out) {
  const auto* used = state.namespace_used(ns);
  const auto* limits = state.namespace_limits(ns);
  for (size_t v = 0; v < devices.size(); ++v) {
    const host::DeviceDescription& desc = devices[v].description();
    const scheduling::VendorTotals u =
        used != nullptr && v < used->size() ? (*used)[v] : scheduling::VendorTotals{};
    const scheduling::QuotaLimits l =
        limits != nullptr && v < limits->size() ? (*limits)[v] : scheduling::QuotaLimits{};
    if (!desc.memory_resource.empty() && (u.memory_mib > 0 || l.memory_mib)) {
      out.push_back({std::string(ns), desc.memory_resource, u.memory_mib, l.memory_mib});
    }
    if (!desc.cores_resource.empty() && (u.cores > 0 || l.cores))
      out.push_back({std::string(ns), desc.cores_resource, u.cores, l.cores});
  }
}

// The per-container allocations the pod's annotations record.
void add_containers(const cluster::PodRecord& record, bool shrunk,
                    std::span<const host::DevicePluginHandle> devices, PodUsage& pod) {
  std::string error;
  const auto allocations = scheduling::allocations_from_pod(devices, record, error);
  if (!allocations)
    return;
  const size_t init_count = record.model ? record.model->view().init_count : 0;
  for (const scheduling::VendorAllocation& vendor : *allocations) {
    for (size_t i = 0; i < vendor.containers.size(); ++i) {
      if (shrunk && i < init_count)
        continue;
      for (const host::AllocDevice& d : vendor.containers[i]) {
        pod.devices.push_back(
            {static_cast<uint32_t>(i), d.id, d.memory_mib, static_cast<int64_t>(d.cores)});
      }
    }
  }
}

// The devices of out.nodes by (node, vendor, device id), for attaching
// partitions: a vendor's partition lands on one of its own devices only.
using DeviceIndex =
    std::map<std::tuple<std::string_view, size_t, std::string_view>, DeviceUsage*, std::less<>>;

// Every vendor's partition families, in plugin order; `offsets[v]` is the
// index of vendor v's first family.
void add_partition_families(std::span<const host::DevicePluginHandle> devices,
                            std::vector<PartitionFamily>& out, std::vector<size_t>& offsets) {
  for (const host::DevicePluginHandle& plugin : devices) {
    offsets.push_back(out.size());
    for (const host::PartitionMetric& m : plugin.description().partition_metrics)
      out.push_back({m.name, m.help, m.labels, m.legacy});
  }
}

// The partitions each vendor reports for the pod, on the devices of
// `node` they name (others are ignored). A vendor whose call fails adds
// nothing for this pod.
void add_partitions(const cluster::PodRecord& record, std::string_view node,
                    std::span<const host::DevicePluginHandle> devices,
                    std::span<const size_t> offsets, const DeviceIndex& index) {
  if (!record.model)
    return;
  const hami_pod_view& view = record.model->view();
  for (size_t v = 0; v < devices.size(); ++v) {
    std::vector<host::PartitionRecord> partitions;
    try {
      partitions = devices[v].describe_partitions(view);
    } catch (const host::PluginCallError&) {
      continue;
    }
    for (host::PartitionRecord& p : partitions) {
      const auto device = index.find(std::make_tuple(node, v, std::string_view(p.device_id)));
      if (device == index.end())
        continue;
      device->second->partitions.push_back({offsets[v] + p.family, std::move(p.values)});
    }
  }
}

}  // namespace

LedgerUsageSource::LedgerUsageSource(const scheduling::Scheduler& scheduler,
                                     const cluster::ClusterState& cluster,
                                     std::span<const host::DevicePluginHandle> devices)
    : scheduler_(scheduler), cluster_(cluster), devices_(devices) {}

ClusterUsage LedgerUsageSource::usage() const {
  // Read before the ledger lock: the cluster state is never consulted
  // while it is held.
  std::set<std::string, std::less<>> namespaces;
  for (const cluster::ResourceQuotaRecord& q : cluster_.quotas())
    namespaces.insert(q.namespace_);

  ClusterUsage out;
  std::vector<size_t> family_offsets;
  add_partition_families(devices_, out.partition_families, family_offsets);
  std::vector<ChargeCopy> charges;
  // Per node of out.nodes, the vendor of each of its devices.
  std::vector<std::vector<size_t>> device_vendors;
  {
    const auto snapshot = scheduler_.ledger().read();
    for (const auto& [name, entry] : snapshot->nodes()) {
      if (entry.devices) {
        NodeUsage node;
        node.name = name;
        std::vector<size_t> vendor_of;
        const auto& vendors = entry.devices->vendors();
        for (size_t v = 0; v < vendors.size(); ++v) {
          if (v < entry.healthy.size() && !entry.healthy[v])
            continue;
          const bool cores_count =
              v < devices_.size() && devices_[v].description().cores_unit == HAMI_CORES_COUNT;
          for (size_t k = 0; k < vendors[v].size(); ++k) {
            const scheduling::DeviceUse use = v < entry.use.size() && k < entry.use[v].size()
                                                  ? entry.use[v][k]
                                                  : scheduling::DeviceUse{};
            node.devices.push_back(device_usage(vendors[v], k, use, cores_count));
            vendor_of.push_back(v);
          }
        }
        if (!node.devices.empty()) {
          out.nodes.push_back(std::move(node));
          device_vendors.push_back(std::move(vendor_of));
        }
      }
      for (const std::string& uid : entry.pods) {
        if (const scheduling::PodCharge* c = snapshot->pod(uid))
          charges.push_back({c->uid, c->namespace_, c->name, c->node, c->shrunk});
      }
    }
    for (const ChargeCopy& c : charges)
      namespaces.insert(c.namespace_);
    for (const std::string& ns : namespaces)
      add_quotas(ns, *snapshot, devices_, out.quotas);
  }

  DeviceIndex device_index;
  for (size_t n = 0; n < out.nodes.size(); ++n) {
    NodeUsage& node = out.nodes[n];
    for (size_t k = 0; k < node.devices.size(); ++k) {
      device_index.emplace(std::make_tuple(std::string_view(node.name), device_vendors[n][k],
                                           std::string_view(node.devices[k].uuid)),
                           &node.devices[k]);
    }
  }
  // One read of every pod (one short hold of the cluster's lock) rather
  // than a lookup per charge, which would contend with the scheduling
  // path's own cluster reads thousands of times per scrape.
  std::map<std::pair<std::string_view, std::string_view>, const cluster::PodRecord*> records;
  const auto pods = cluster_.pods();
  for (const auto& record : pods)
    records.emplace(std::pair<std::string_view, std::string_view>(record->namespace_, record->name),
                    record.get());
  for (const ChargeCopy& c : charges) {
    const auto found = records.find({c.namespace_, c.name});
    if (found == records.end())
      continue;
    const cluster::PodRecord& record = *found->second;
    // A pod recreated under the same name is another pod; the ledger's
    // charge is keyed by the old uid (or namespace/name without one).
    if (record.uid != c.uid && c.uid != c.namespace_ + "/" + c.name)
      continue;
    PodUsage pod;
    pod.namespace_ = c.namespace_;
    pod.name = c.name;
    pod.node = c.node;
    add_containers(record, c.shrunk, devices_, pod);
    if (!pod.devices.empty())
      out.pods.push_back(std::move(pod));
    add_partitions(record, c.node, devices_, family_offsets, device_index);
  }
  return out;
}

}  // namespace hami::observability
