// AlwaysLeader: leader election off (cluster.leaderElection.mode none, HAMi
// without --leader-elect): this process is always the leader. Suits one
// replica, or the file backend.
#pragma once

#include <string>

#include "kube/leader_detector.hpp"

namespace hami::kube {

class AlwaysLeader final : public LeaderDetector {
 public:
  explicit AlwaysLeader(const std::string& identity) {
    publish(true, identity, "leader: leader election off (cluster.leaderElection.mode none)");
  }
};

}  // namespace hami::kube
