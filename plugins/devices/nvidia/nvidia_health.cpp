#include "nvidia_health.hpp"

#include <functional>

namespace hami::devices::nvidia {

HealthTracker::Digest HealthTracker::digest(std::string_view text) {
  return {text.size(), std::hash<std::string_view>{}(text)};
}

HandshakeResult HealthTracker::check(const NodeFacts& node, std::int64_t now_unix) {
  const std::int64_t current = node.allocatable_count;
  HandshakeResult generic = check_handshake(node.handshake, now_unix, current > 0);
  const Digest reg = digest(node.register_annotation.value_or(std::string_view{}));

  std::lock_guard lock(mutex_);
  auto it = nodes_.find(node.name);
  const std::int64_t reported = it == nodes_.end() ? 0 : it->second.reported;

  // The handshake stamp (if any) is written whatever the outcome below, as
  // HAMi patches it inside the generic check.
  HandshakeResult r;
  r.stamp = std::move(generic.stamp);

  if (current == 0) {
    if (reported == 0) {
      r.healthy = generic.healthy;
      r.needs_update = generic.needs_update;
      return r;
    }
    it->second.reported = 0;
    r.healthy = false;
    r.needs_update = false;
    return r;
  }
  if (it == nodes_.end())
    it = nodes_.emplace(std::string(node.name), Memory{}).first;
  if (current != reported) {
    it->second.reported = current;
    it->second.register_annotation = reg;
    r.healthy = true;
    r.needs_update = true;
    return r;
  }
  if (it->second.register_annotation != reg) {
    it->second.register_annotation = reg;
    r.healthy = generic.healthy;
    r.needs_update = true;
    return r;
  }
  r.healthy = generic.healthy;
  r.needs_update = generic.needs_update;
  return r;
}

void HealthTracker::forget(std::string_view node_name) {
  std::lock_guard lock(mutex_);
  if (auto it = nodes_.find(node_name); it != nodes_.end())
    nodes_.erase(it);
}

std::size_t HealthTracker::tracked_nodes() const {
  std::lock_guard lock(mutex_);
  return nodes_.size();
}

}  // namespace hami::devices::nvidia
