#include "scheduling/locks_in_flight.hpp"

#include <algorithm>
#include <utility>

namespace hami::scheduling {

LocksInFlight::Claim::Claim(Claim&& other) noexcept : owner_(other.owner_), id_(other.id_) {
  other.owner_ = nullptr;
}

LocksInFlight::Claim::~Claim() {
  if (owner_ != nullptr)
    owner_->release(id_);
}

void LocksInFlight::Claim::keep(std::string written, int64_t now, int64_t expiry_seconds) {
  if (owner_ == nullptr)
    return;
  owner_->keep(id_, std::move(written), now + expiry_seconds);
  owner_ = nullptr;
}

LocksInFlight::Claim LocksInFlight::claim(std::string_view node,
                                          const cluster::NodeLockOptions& lock,
                                          std::string_view namespace_, std::string_view name,
                                          int64_t now) {
  const std::lock_guard guard(mu_);
  std::erase_if(marks_, [&](const Mark& mark) { return mark.kept && now > mark.until; });
  const uint64_t id = next_id_++;
  Mark mark;
  mark.id = id;
  mark.node = std::string(node);
  mark.lock = {lock.annotation, std::string(namespace_), std::string(name)};
  mark.owner_in_value = lock.owner_in_value;
  marks_.push_back(std::move(mark));
  return Claim(this, id);
}

bool LocksInFlight::shows(const Mark& mark, std::string_view value) const {
  if (mark.owner_in_value) {
    // "<time>,<namespace>,<name>": any lock of the claiming pod.
    const std::string owner = "," + mark.lock.namespace_ + "," + mark.lock.name;
    return value.size() > owner.size() && value.ends_with(owner);
  }
  return mark.kept && value == mark.written;
}

void LocksInFlight::seen(const k8s::NodeModel& node) {
  const std::lock_guard guard(mu_);
  std::erase_if(marks_, [&](Mark& mark) {
    if (mark.node != node.name())
      return false;
    const auto value = node.annotation(mark.lock.annotation);
    if (!value) {
      if (!mark.kept)
        mark.last_seen.reset();
      return false;
    }
    if (!mark.kept)
      mark.last_seen = std::string(*value);
    return shows(mark, *value);
  });
}

void LocksInFlight::node_deleted(std::string_view node) {
  const std::lock_guard guard(mu_);
  std::erase_if(marks_, [&](const Mark& mark) { return mark.node == node; });
}

void LocksInFlight::release(uint64_t id) {
  const std::lock_guard guard(mu_);
  std::erase_if(marks_, [&](const Mark& mark) { return mark.id == id; });
}

void LocksInFlight::keep(uint64_t id, std::string written, int64_t until) {
  const std::lock_guard guard(mu_);
  const auto it =
      std::find_if(marks_.begin(), marks_.end(), [&](const Mark& mark) { return mark.id == id; });
  if (it == marks_.end())
    return;  // the feed showed the lock already
  it->kept = true;
  it->written = std::move(written);
  it->until = until;
  // The feed may have shown the lock while the write was returning.
  if (it->last_seen && shows(*it, *it->last_seen))
    marks_.erase(it);
}

LocksInFlightByNode LocksInFlight::marks(int64_t now) const {
  LocksInFlightByNode out;
  const std::lock_guard guard(mu_);
  for (const Mark& mark : marks_) {
    if (mark.kept && now > mark.until)
      continue;
    out[mark.node].push_back(mark.lock);
  }
  return out;
}

std::optional<HeldLock> held_lock(const LocksInFlightByNode& in_flight, std::string_view node,
                                  const std::vector<cluster::NodeLockOptions>& locks,
                                  std::string_view namespace_, std::string_view name) {
  const auto it = in_flight.find(std::string(node));
  if (it == in_flight.end())
    return std::nullopt;
  for (const cluster::NodeLockOptions& lock : locks) {
    for (const LockInFlight& mark : it->second) {
      if (mark.annotation != lock.annotation ||
          (mark.namespace_ == namespace_ && mark.name == name))
        continue;
      return HeldLock{contention_reason(node, lock), "node being locked by " + mark.namespace_ +
                                                         "/" + mark.name + " (bind in flight)"};
    }
  }
  return std::nullopt;
}

}  // namespace hami::scheduling
