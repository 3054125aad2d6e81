// Node locks a bind of this process is taking, until the change feed shows
// them. kube-scheduler picks the next pod's node while the previous pod's
// bind is still writing its lock; the feed shows that lock only after the
// write, so filter would send the next pod to the same node, whose bind
// then fails with contention. Filter counts a node marked here as locked,
// as it counts a node whose lock the feed shows.
//
// A mark lives from the moment a bind starts taking a lock until either
// the bind lets go of it (its Claim is destroyed without keep(): the lock
// was refused or released) or, for a lock left on the node (keep()), the
// feed shows the lock on the node: then the node is among the lock
// carriers. A kept mark the feed never confirms (a relist that skipped the
// versions carrying it) counts no longer than the lock's expiry.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cluster/node_lock.hpp"
#include "k8s/node.hpp"
#include "scheduling/held_locks.hpp"

namespace hami::scheduling {

struct LockInFlight {
  std::string annotation;
  // The pod taking it.
  std::string namespace_;
  std::string name;
};

// The marks of one moment, by node.
using LocksInFlightByNode = std::unordered_map<std::string, std::vector<LockInFlight>>;

class LocksInFlight {
 public:
  // One bind's mark on one lock of a node. Move-only; destroyed without
  // keep() it removes the mark.
  class Claim {
   public:
    Claim(Claim&& other) noexcept;
    Claim& operator=(Claim&&) = delete;
    Claim(const Claim&) = delete;
    Claim& operator=(const Claim&) = delete;
    ~Claim();
    // The lock stays on the node after the bind: the mark stays until the
    // feed shows the lock (for a lock naming its owner, any value naming
    // the claiming pod; else the value `written`), at most `expiry_seconds`
    // after `now`.
    void keep(std::string written, int64_t now, int64_t expiry_seconds);

   private:
    friend class LocksInFlight;
    Claim(LocksInFlight* owner, uint64_t id) : owner_(owner), id_(id) {}
    LocksInFlight* owner_;
    uint64_t id_;
  };

  // Marks `node` as having lock `lock` taken by pod `namespace_/name` (and
  // forgets the kept marks expired at Unix time `now`).
  Claim claim(std::string_view node, const cluster::NodeLockOptions& lock,
              std::string_view namespace_, std::string_view name, int64_t now);

  // The change feed: the node as stored now. Drops the marks whose lock it
  // shows.
  void seen(const k8s::NodeModel& node);
  void node_deleted(std::string_view node);

  // The marks that count at Unix time `now`.
  LocksInFlightByNode marks(int64_t now) const;

 private:
  struct Mark {
    uint64_t id = 0;
    std::string node;
    LockInFlight lock;
    bool owner_in_value = true;
    // Set by keep().
    bool kept = false;
    std::string written;
    int64_t until = 0;
    // The value the feed last showed for the annotation while the bind
    // was still writing (an owner-less lock's value is known only after
    // the write returns).
    std::optional<std::string> last_seen;
  };
  bool shows(const Mark& mark, std::string_view value) const;
  void release(uint64_t id);
  void keep(uint64_t id, std::string written, int64_t until);

  mutable std::mutex mu_;
  uint64_t next_id_ = 0;
  std::vector<Mark> marks_;
};

// The first of `locks` that a mark on `node` by a pod other than
// `namespace_/name` holds, worded as bind's contention.
std::optional<HeldLock> held_lock(const LocksInFlightByNode& in_flight, std::string_view node,
                                  const std::vector<cluster::NodeLockOptions>& locks,
                                  std::string_view namespace_, std::string_view name);

}  // namespace hami::scheduling
