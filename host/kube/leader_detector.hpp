// LeaderDetector: whether this process is the one that may register nodes,
// write handshakes and answer filter/bind (HAMi reference §1.8). Three
// implementations:
//   AlwaysLeader   (leader_always.hpp)   mode none: always the leader;
//   LeaseFollower  (leader_follower.hpp) mode follow: HAMi's passive mode,
//                  leader while the co-located kube-scheduler holds its
//                  Lease under our identity;
//   LeaseElector   (leader_elector.hpp)  mode elect: our own Lease election
//                  (client-go's algorithm, kubernetes.md §4.7).
//
// Thread-safe. Listeners run on the detector's thread (or the caller of
// start()/stop()), one at a time, after the state has changed, and must
// not call back into the detector's start()/stop().
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace hami::kube {

class LeaderDetector {
 public:
  using Listener = std::function<void(bool leader, const std::string& detail)>;

  virtual ~LeaderDetector() = default;
  LeaderDetector() = default;
  LeaderDetector(const LeaderDetector&) = delete;
  LeaderDetector& operator=(const LeaderDetector&) = delete;

  // Begins watching / electing; returns at once.
  virtual void start() {}
  // Ends it (an elector releases a lease it holds); idempotent.
  virtual void stop() {}

  virtual bool is_leader() const;
  // The lease's current holder identity ("" when none or unknown).
  std::string holder() const;
  // Why this process is or is not the leader, e.g. "not the leader: lease
  // kube-system/kube-scheduler is held by node-b_1234".
  std::string detail() const;
  // Called whenever is_leader() flips (not for detail-only changes).
  void on_change(Listener listener);

  // "" when leader, else detail(): the scheduler's gate text.
  virtual std::string gate() const;

 protected:
  // Records the new state and tells the listeners when leadership flipped.
  void publish(bool leader, std::string holder, std::string detail);

 private:
  mutable std::mutex mu_;
  bool leader_ = false;
  std::string holder_;
  std::string detail_ = "not the leader: leader detection not started";
  std::mutex listeners_mu_;  // held while listeners run: one at a time, in order
  std::vector<Listener> listeners_;
};

// Our identity for leader election: `configured` when not empty, else
// $POD_NAME when set, else the host name.
std::string leader_identity(const std::string& configured);

// "kube-system/kube-scheduler".
std::string lease_ref(const std::string& namespace_, const std::string& name);

}  // namespace hami::kube
