#include "scheduling/held_locks.hpp"

namespace hami::scheduling {

std::string contention_reason(std::string_view node, const cluster::NodeLockOptions& options) {
  const std::string& key = options.annotation;
  const std::string what =
      key == cluster::kNodeLockAnnotation ? std::string("node lock") : "node lock " + key;
  return "node " + std::string(node) + " has been locked within " +
         cluster::go_duration(options.expiry_seconds) + ": " + what + " contention";
}

std::optional<HeldLock> held_lock(const k8s::NodeModel& node,
                                  const cluster::NodeLockOptions& options,
                                  const cluster::ClusterState& cluster, std::string_view namespace_,
                                  std::string_view name, int64_t now) {
  const std::string& key = options.annotation;
  const auto value = node.annotation(key);
  if (!value)
    return std::nullopt;
  const std::string node_name(node.name());
  // "<RFC 3339 time>" or "<time>,<namespace>,<name>" (node_lock.hpp).
  const size_t comma = value->find(',');
  const std::string_view time_text = value->substr(0, comma);
  std::string_view owner_ns;
  std::string_view owner;
  bool well_formed = true;
  if (comma != std::string_view::npos) {
    const std::string_view rest = value->substr(comma + 1);
    const size_t second = rest.find(',');
    if (second == std::string_view::npos || rest.find(',', second + 1) != std::string_view::npos) {
      well_formed = false;
    } else {
      owner_ns = rest.substr(0, second);
      owner = rest.substr(second + 1);
    }
  }
  const auto since = cluster::parse_rfc3339(time_text);
  const bool legacy = comma == std::string_view::npos;
  if (!since || !well_formed || (!options.owner_in_value && !legacy)) {
    return HeldLock{"node " + node_name + " has an invalid lock annotation " + key + "=\"" +
                        std::string(*value) + "\"",
                    "node lock " + key + " malformed: \"" + std::string(*value) + "\""};
  }
  if (now - *since > options.expiry_seconds)
    return std::nullopt;
  if (!legacy && owner_ns == namespace_ && owner == name)
    return std::nullopt;
  if (!legacy && !cluster.pod_exists(owner_ns, owner))
    return std::nullopt;
  HeldLock held;
  held.reason = contention_reason(node_name, options);
  const std::string when = cluster::format_rfc3339(*since);
  if (legacy) {
    held.detail = key == cluster::kNodeLockAnnotation
                      ? "node locked since " + when + " (no owner named)"
                      : "node locked by " + key + " since " + when;
  } else {
    held.detail =
        "node locked by " + std::string(owner_ns) + "/" + std::string(owner) + " since " + when;
  }
  return held;
}

std::vector<cluster::NodeLockOptions> locks_taken(const std::vector<bool>& vendor_used,
                                                  std::span<const host::DevicePluginHandle> devices,
                                                  const cluster::NodeLockOptions& shared) {
  std::vector<cluster::NodeLockOptions> locks;
  bool shared_lock = false;
  for (size_t v = 0; v < devices.size() && v < vendor_used.size(); ++v) {
    if (!vendor_used[v])
      continue;
    const host::DeviceDescription& d = devices[v].description();
    if (d.takes_node_lock() && !shared_lock) {
      shared_lock = true;
      locks.insert(locks.begin(), shared);
    } else if (d.takes_own_lock()) {
      cluster::NodeLockOptions own_lock = shared;
      own_lock.annotation = d.own_lock_annotation;
      own_lock.owner_in_value = false;
      own_lock.expiry_seconds = d.own_lock_expiry_seconds;
      locks.push_back(own_lock);
    }
  }
  return locks;
}

std::optional<HeldLock> held_lock(const LockedNodes& locked, std::string_view node,
                                  const std::vector<cluster::NodeLockOptions>& locks,
                                  const cluster::ClusterState& cluster, std::string_view namespace_,
                                  std::string_view name, int64_t now) {
  const auto it = locked.find(node);
  if (it == locked.end())
    return std::nullopt;
  for (const cluster::NodeLockOptions& lock : locks) {
    if (auto held = held_lock(*it->second, lock, cluster, namespace_, name, now))
      return held;
  }
  return std::nullopt;
}

}  // namespace hami::scheduling
