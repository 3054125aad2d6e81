#include "scheduling/usage_ledger.hpp"

#include <algorithm>

namespace hami::scheduling {

const NodeEntry* LedgerState::node(std::string_view name) const {
  const auto it = nodes_.find(name);
  return it == nodes_.end() ? nullptr : &it->second;
}

const PodCharge* LedgerState::pod(std::string_view uid) const {
  const auto it = pods_.find(uid);
  return it == pods_.end() ? nullptr : &it->second;
}

const std::vector<VendorTotals>* LedgerState::namespace_used(std::string_view ns) const {
  const auto it = namespace_used_.find(ns);
  return it == namespace_used_.end() ? nullptr : &it->second;
}

const std::vector<QuotaLimits>* LedgerState::namespace_limits(std::string_view ns) const {
  const auto it = namespace_limits_.find(ns);
  return it == namespace_limits_.end() ? nullptr : &it->second;
}

size_t LedgerState::approximate_bytes() const {
  // Node entries, pod charges and their strings, plus the hash tables'
  // buckets; short strings live inside their std::string.
  const auto str = [](const std::string& s) {
    return s.capacity() > 15 ? s.capacity() + 1 : size_t{0};
  };
  size_t bytes = 0;
  for (const auto& [name, n] : nodes_) {
    bytes += sizeof(std::pair<const std::string, NodeEntry>) + str(name) + 2 * sizeof(void*);
    for (const auto& v : n.use)
      bytes += sizeof(v) + v.capacity() * sizeof(DeviceUse);
    bytes += n.pods.capacity() * sizeof(std::string);
    for (const auto& uid : n.pods)
      bytes += str(uid);
  }
  for (const auto& [uid, p] : pods_) {
    bytes += sizeof(std::pair<const std::string, PodCharge>) + str(uid) + 2 * sizeof(void*);
    bytes += str(p.uid) + str(p.namespace_) + str(p.name) + str(p.node);
    bytes += p.devices.capacity() * sizeof(DeviceCharge);
    for (const auto& d : p.devices)
      bytes += str(d.device_id);
  }
  bytes += (nodes_.bucket_count() + pods_.bucket_count()) * sizeof(void*);
  return bytes;
}

NodeEntry& LedgerState::entry(std::string_view node) {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) {
    it = nodes_.emplace(std::string(node), NodeEntry{}).first;
    it->second.healthy.assign(vendor_count_, true);
    it->second.tracked.assign(vendor_count_, false);
  }
  return it->second;
}

void LedgerState::add_to_use(NodeEntry& node, const DeviceCharge& d, int sign) {
  if (!node.devices || d.vendor >= node.use.size())
    return;
  // Charges naming a device the node does not register (a GPU that was
  // removed, a stale annotation) are kept but count nowhere, as in HAMi.
  const size_t k = node.devices->vendors()[d.vendor].find(d.device_id);
  if (k == NodeDevices::npos)
    return;
  DeviceUse& u = node.use[d.vendor][k];
  u.used += sign * d.slots;
  u.memory_mib += sign * d.memory_mib;
  u.cores += sign * d.cores;
  apply_holds(node.holds, u, k, d, sign);
}

void LedgerState::apply(const PodCharge& charge, int sign) {
  const auto on_node = [&](const std::string& name) {
    NodeEntry& n = entry(name);
    for_each_charged(charge, name, [&](const DeviceCharge& d) { add_to_use(n, d, sign); });
    if (sign > 0) {
      n.pods.push_back(charge.uid);
    } else {
      const auto it = std::find(n.pods.begin(), n.pods.end(), charge.uid);
      if (it != n.pods.end()) {
        *it = std::move(n.pods.back());
        n.pods.pop_back();
      }
    }
  };
  // A reservation's held allocation may be on another node: the pod is
  // listed on each node it counts on, once.
  if (!charge.node.empty())
    on_node(charge.node);
  if (!charge.held_node.empty() && charge.held_node != charge.node)
    on_node(charge.held_node);
  auto& totals = namespace_used_[charge.namespace_];
  totals.resize(vendor_count_);
  for (const DeviceCharge& d : charge.devices) {
    if (d.vendor >= vendor_count_)
      continue;
    // Usage never goes below zero (HAMi quota cache).
    totals[d.vendor].memory_mib =
        std::max<int64_t>(0, totals[d.vendor].memory_mib + sign * d.memory_mib);
    totals[d.vendor].cores = std::max<int64_t>(0, totals[d.vendor].cores + sign * d.cores);
  }
}

void LedgerState::set_node_devices(std::shared_ptr<const NodeDevices> devices) {
  NodeEntry& n = entry(devices->name());
  n.devices = std::move(devices);
  n.use.assign(vendor_count_, {});
  n.holds.clear();
  for (size_t v = 0; v < vendor_count_ && v < n.devices->vendors().size(); ++v) {
    n.use[v].assign(n.devices->vendors()[v].size(), DeviceUse{});
  }
  for (const std::string& uid : n.pods) {
    const auto it = pods_.find(uid);
    if (it == pods_.end())
      continue;
    for_each_charged(it->second, n.devices->name(),
                     [&](const DeviceCharge& d) { add_to_use(n, d, +1); });
  }
}

void LedgerState::remove_node(std::string_view name) {
  const auto it = nodes_.find(name);
  if (it == nodes_.end())
    return;
  if (it->second.pods.empty()) {
    nodes_.erase(it);
    return;
  }
  it->second.devices.reset();
  it->second.use.clear();
  it->second.holds.clear();
  it->second.healthy.assign(vendor_count_, true);
  it->second.tracked.assign(vendor_count_, false);
}

void LedgerState::set_health(std::string_view node, uint32_t vendor, bool healthy) {
  NodeEntry& n = entry(node);
  if (vendor < n.healthy.size())
    n.healthy[vendor] = healthy;
  if (vendor < n.tracked.size())
    n.tracked[vendor] = healthy;
}

std::optional<PodCharge> LedgerState::put_pod(PodCharge charge) {
  std::optional<PodCharge> previous = remove_pod(charge.uid);
  apply(charge, +1);
  std::string uid = charge.uid;
  pods_.emplace(std::move(uid), std::move(charge));
  return previous;
}

std::optional<PodCharge> LedgerState::remove_pod(std::string_view uid) {
  const auto it = pods_.find(uid);
  if (it == pods_.end())
    return std::nullopt;
  PodCharge previous = std::move(it->second);
  pods_.erase(it);
  apply(previous, -1);
  return previous;
}

void LedgerState::set_quota_limits(StringMap<std::vector<QuotaLimits>> limits) {
  namespace_limits_ = std::move(limits);
}

}  // namespace hami::scheduling
