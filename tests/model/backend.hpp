// A cluster backend under test, as the model run sees it: the ClusterState
// the scheduler is built over, the objects the backend really stores (the
// reference model's input), the writes a user, kubelet or device plugin
// makes behind the scheduler's back, and injected faults.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "cluster/cluster_state.hpp"
#include "stored_state.hpp"

namespace hami::model {

// One injected fault, armed for the next operation and aimed at one pod or
// node. "before": refused before the write is stored; "after": stored,
// then answered as failed (a 5xx or timeout after the commit).
enum class Fault {
  none,
  pod_write_before,       // 5xx on the pod's first metadata write
  pod_write_after,        // the pod's first metadata write stored, then 5xx
  pod_write_conflict,     // 409 on the pod's first metadata write
  pod_write_and_removal,  // 5xx on the pod's first two metadata writes
  node_write_before,      // 5xx on the node's first annotation write (the lock)
  node_write_after,       // the node's first annotation write stored, then 5xx
  binding_before,         // 5xx on the pod's Binding
  binding_after,          // the Binding stored, then 5xx
  binding_refused,        // 429 on the pod's Binding: refused, known not stored
};

std::string_view fault_name(Fault fault);
// Whether the fault leaves the pod's allocation write with an outcome the
// scheduler cannot know (the write or its removal failed Unavailable).
bool pod_write_unknown(Fault fault);
bool node_write_fault(Fault fault);

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  virtual cluster::ClusterState& cluster() = 0;
  // The objects as stored now (the snapshot / the server, not a cache).
  virtual StoredState stored() const = 0;
  // Creates or replaces an object on the store (resourceVersion stripped).
  virtual void put_pod(const std::string& json) = 0;
  virtual void put_node(const std::string& json) = 0;
  virtual void remove_pod(const std::string& ns, const std::string& name) = 0;

  virtual void arm(Fault fault, const std::string& ns, const std::string& pod,
                   const std::string& node) = 0;
  // Disarms whatever did not fire; returns whether the armed fault fired.
  virtual bool disarm() = 0;

  // Watch faults (the Kubernetes backend only).
  virtual bool has_watches() const { return false; }
  // Cuts every watch stream: what changes next is caught up by a re-watch.
  virtual void drop_watches() {}
  // Forgets the server's history, then cuts the watches: the re-watch gets
  // 410 and relists.
  virtual void expire_history() {}
  // Waits up to `timeout` until the backend's cache holds exactly the
  // stored objects' versions; true when it does (always, without a cache).
  virtual bool catch_up(std::chrono::milliseconds /*timeout*/) { return true; }
};

}  // namespace hami::model
