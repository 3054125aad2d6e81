#include "scheduling/placement_scores.hpp"

#include <vector>

#include "plugins/plugin_errors.hpp"

namespace hami::scheduling {

bool scores_placements(std::span<const host::DevicePluginHandle> plugins,
                       const PodRequests& requests) {
  for (size_t v = 0; v < plugins.size() && v < requests.vendor_used.size(); ++v) {
    if (requests.vendor_used[v] && plugins[v].scores_placements())
      return true;
  }
  return false;
}

void add_placement_scores(std::span<const host::DevicePluginHandle> plugins,
                          const PodRequests& requests, const hami_pod_view& pod,
                          std::string_view node_policy, const NodeDevices& devices,
                          const NodeUse& usage, const NodeFit& fit, hami_node_usage& out,
                          std::string& errors) {
  for (size_t v = 0; v < plugins.size() && v < requests.vendor_used.size(); ++v) {
    if (!requests.vendor_used[v] || !plugins[v].scores_placements() ||
        v >= devices.vendors().size()) {
      continue;
    }
    const VendorDevices& vd = devices.vendors()[v];
    std::vector<hami_device_usage> device_usage(vd.size());
    for (size_t k = 0; k < vd.size(); ++k) {
      const DeviceUse* u = v < usage.size() && k < usage[v].size() ? &usage[v][k] : nullptr;
      device_usage[k] = {sizeof(hami_device_usage), &vd.abi[k], u != nullptr ? u->used : 0,
                         u != nullptr ? u->memory_mib : 0,
                         u != nullptr ? static_cast<int32_t>(u->cores) : 0};
    }
    host::PodAllocation allocation(fit.containers.size());
    for (size_t c = 0; c < fit.containers.size(); ++c) {
      for (const Placement& p : fit.containers[c]) {
        if (p.vendor == v)
          allocation[c].push_back({p.id, p.type, p.memory_mib, p.cores, p.index, p.data});
      }
    }
    try {
      const host::PlacementScore s =
          plugins[v].score_placement(pod, devices.name(), node_policy, device_usage, allocation);
      (s.policy_neutral ? out.vendor_neutral_score : out.vendor_score) += s.score;
    } catch (const host::PluginCallError& e) {
      if (!errors.empty())
        errors += "; ";
      errors += e.what();
    }
  }
}

}  // namespace hami::scheduling
