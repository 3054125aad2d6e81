#include "scheduling/explain_locks.hpp"

namespace hami::scheduling {

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
  const std::string what =
      key == cluster::kNodeLockAnnotation ? std::string("node lock") : "node lock " + key;
  HeldLock held;
  held.reason = "node " + node_name + " has been locked within " +
                cluster::go_duration(options.expiry_seconds) + ": " + what + " contention";
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

}  // namespace hami::scheduling
