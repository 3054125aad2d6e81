// Whether a node lock would keep a pod's bind off a node now (explain says
// so; filter prefers the nodes no lock holds), judged
// read-only the way cluster::NodeLocker judges it before taking the lock:
// an absent, expired or malformed-free lock of the pod itself, or one whose
// owner pod is gone, does not; any other does.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cluster/cluster_state.hpp"
#include "cluster/node_lock.hpp"
#include "k8s/node.hpp"
#include "plugins/device_plugin_handle.hpp"

namespace hami::scheduling {

struct HeldLock {
  // What bind would answer: HAMi's contention text ("node n has been locked
  // within 5m0s: node lock contention"), or the invalid-annotation error.
  std::string reason;
  // In words: "node locked by ml/train-0 since 2025-06-15T15:06:40Z".
  std::string detail;
};

// Bind's refusal when lock `options` on `node` is another pod's: HAMi's
// "node n has been locked within 5m0s: node lock contention".
std::string contention_reason(std::string_view node, const cluster::NodeLockOptions& options);

// The lock of `options` (annotation, owner in the value or not, expiry) on
// `node` as it keeps pod `namespace_/name` out at Unix time `now`; nullopt
// when it does not.
std::optional<HeldLock> held_lock(const k8s::NodeModel& node,
                                  const cluster::NodeLockOptions& options,
                                  const cluster::ClusterState& cluster, std::string_view namespace_,
                                  std::string_view name, int64_t now);

// The locks a bind of a pod using the vendors marked in `vendor_used`
// takes: the shared one (`shared`) when a requested vendor takes it, then
// each requested vendor's own (ABI 1.2).
std::vector<cluster::NodeLockOptions> locks_taken(const std::vector<bool>& vendor_used,
                                                  std::span<const host::DevicePluginHandle> devices,
                                                  const cluster::NodeLockOptions& shared);

// Nodes carrying a node lock annotation, by name (the name views the
// node's own).
using LockedNodes = std::unordered_map<std::string_view, std::shared_ptr<const k8s::NodeModel>>;

// The first of `locks` on the node that keeps pod `namespace_/name` out.
std::optional<HeldLock> held_lock(const LockedNodes& locked, std::string_view node,
                                  const std::vector<cluster::NodeLockOptions>& locks,
                                  const cluster::ClusterState& cluster, std::string_view namespace_,
                                  std::string_view name, int64_t now);

}  // namespace hami::scheduling
