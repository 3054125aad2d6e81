// UsageLedger: what is allocated where. Holds every node's decoded devices,
// every pod's collapsed charge (from its allocation annotations or from this
// process's reservations), the per-device usage those charges add up to,
// and per-namespace quota limits and usage.
//
// Concurrency: one reader/writer lock. Filter calls take a Snapshot (shared)
// and fit every candidate node against it; a bind (or a filter-mode
// reservation) takes a Transaction (exclusive), re-fits on the chosen node
// against the live usage and records its reservation before releasing the
// lock, so two binds can never both take the last room on a device.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "scheduling/device_holds.hpp"
#include "scheduling/device_use.hpp"
#include "scheduling/node_devices.hpp"
#include "scheduling/pod_charge.hpp"

namespace hami::scheduling {

struct NodeEntry {
  std::shared_ptr<const NodeDevices> devices;  // null: the node is not known (yet)
  NodeUse use;
  NodeHolds holds;            // of the charges on this node, aligned with `use`
  std::vector<bool> healthy;  // per vendor, from the last health check
  // Per vendor: the last health check found it healthy (HAMi's device
  // cache). Only a tracked vendor that turns unhealthy is cleaned up; one
  // never seen healthy (a node's first check, after a restart) is not.
  std::vector<bool> tracked;
  std::vector<std::string> pods;  // uids of the charges on this node
};

// A namespace's quota limits for one vendor (set only when a ResourceQuota
// names limits.<memory resource> / limits.<cores resource>).
struct QuotaLimits {
  std::optional<int64_t> memory_mib;
  std::optional<int64_t> cores;
};

// Not noexcept on purpose: libstdc++ then keeps each key's hash in its
// node (as it does for std::hash<std::string>), so a lookup compares hashes
// before strings and never rehashes the keys it walks past; with 1,000 node
// names per filter the uncached lookups were ~8% of a NodeNames call.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
template <class T>
using StringMap = std::unordered_map<std::string, T, StringHash, std::equal_to<>>;

class LedgerState {
 public:
  explicit LedgerState(size_t vendor_count) : vendor_count_(vendor_count) {}

  size_t vendor_count() const { return vendor_count_; }
  const NodeEntry* node(std::string_view name) const;
  const PodCharge* pod(std::string_view uid) const;
  // Per-vendor totals of every charge in the namespace; nullptr when none.
  const std::vector<VendorTotals>* namespace_used(std::string_view ns) const;
  // Per-vendor limits; nullptr when the namespace has none.
  const std::vector<QuotaLimits>* namespace_limits(std::string_view ns) const;
  size_t pod_count() const { return pods_.size(); }
  size_t node_count() const { return nodes_.size(); }
  const StringMap<NodeEntry>& nodes() const { return nodes_; }
  // Rough heap footprint of the charges and usage (for reporting).
  size_t approximate_bytes() const;

  // Replaces a node's devices and recomputes its usage from its charges.
  void set_node_devices(std::shared_ptr<const NodeDevices> devices);
  // Forgets the node's devices; its charges stay (a node may come back).
  void remove_node(std::string_view name);
  void set_health(std::string_view node, uint32_t vendor, bool healthy);

  // Records `charge` (replacing any charge with the same uid) and returns
  // the one it replaced.
  std::optional<PodCharge> put_pod(PodCharge charge);
  std::optional<PodCharge> remove_pod(std::string_view uid);

  void set_quota_limits(StringMap<std::vector<QuotaLimits>> limits);

 private:
  NodeEntry& entry(std::string_view node);
  void apply(const PodCharge& charge, int sign);
  static void add_to_use(NodeEntry& node, const DeviceCharge& d, int sign);

  size_t vendor_count_;
  StringMap<NodeEntry> nodes_;
  StringMap<PodCharge> pods_;
  StringMap<std::vector<VendorTotals>> namespace_used_;
  StringMap<std::vector<QuotaLimits>> namespace_limits_;
};

class UsageLedger {
 public:
  explicit UsageLedger(size_t vendor_count) : state_(vendor_count) {}

  class Snapshot {
   public:
    const LedgerState& operator*() const { return *state_; }
    const LedgerState* operator->() const { return state_; }

   private:
    friend class UsageLedger;
    Snapshot(std::shared_mutex& mu, const LedgerState& s) : lock_(mu), state_(&s) {}
    std::shared_lock<std::shared_mutex> lock_;
    const LedgerState* state_;
  };

  class Transaction {
   public:
    LedgerState& operator*() const { return *state_; }
    LedgerState* operator->() const { return state_; }

   private:
    friend class UsageLedger;
    Transaction(std::shared_mutex& mu, LedgerState& s) : lock_(mu), state_(&s) {}
    std::unique_lock<std::shared_mutex> lock_;
    LedgerState* state_;
  };

  Snapshot read() const { return Snapshot(mu_, state_); }
  Transaction write() { return Transaction(mu_, state_); }

 private:
  mutable std::shared_mutex mu_;
  LedgerState state_;
};

}  // namespace hami::scheduling
