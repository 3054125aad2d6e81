// HealthLoop: the registration loop (HAMi reference §3.4). Runs
// Scheduler::check_node_health on its own thread
//   - every `period` (HAMi's 15 s ticker),
//   - at once after wake() — several wakes before a pass starts coalesce
//     into one pass,
//   - at once when a node is added or deleted, or when a node's vendor
//     register annotations, status.allocatable or status.capacity change
//     (HAMi ignored node updates, bug 7.7#12). Changes the pass makes itself
//     (handshake, node lock, other annotations) do not wake it, so a pass
//     never triggers an endless series of passes,
// and only while `active` says so (the leader; followers skip the pass and
// count nothing). The owner wakes the loop when leadership is gained. A
// pass is `pass` when given (the owner's wrapper around the health check:
// role labels, the leadership term), else Scheduler::check_node_health.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "cluster/cluster_state.hpp"
#include "scheduling/scheduler.hpp"

namespace hami::scheduling {

class HealthLoop final : private cluster::ClusterWatcher {
 public:
  // Watches `cluster` (the scheduler's) for node changes; both must outlive
  // the loop. `active` empty: always active. `pass` empty:
  // scheduler.check_node_health().
  HealthLoop(Scheduler& scheduler, cluster::ClusterState& cluster, std::chrono::milliseconds period,
             std::function<bool()> active = {}, std::function<void()> pass = {});
  ~HealthLoop() override;
  HealthLoop(const HealthLoop&) = delete;
  HealthLoop& operator=(const HealthLoop&) = delete;

  // Asks for a pass as soon as possible (coalesced).
  void wake();

  // Passes completed since start (tests). Skipped (inactive) turns do not count.
  unsigned passes() const;
  // Passes that were started by a wake (explicit or node change) rather than
  // the period (tests).
  unsigned woken_passes() const;

 private:
  void run();
  uint64_t node_fingerprint(const k8s::NodeModel& node) const;

  // ClusterWatcher: only node changes matter here.
  void node_upserted(const std::shared_ptr<const k8s::NodeModel>& node) override;
  void node_deleted(std::string_view name) override;
  void pod_upserted(const std::shared_ptr<const cluster::PodRecord>&) override {}
  void pod_deleted(const std::shared_ptr<const cluster::PodRecord>&) override {}
  void quotas_changed() override {}

  Scheduler& scheduler_;
  cluster::ClusterState& cluster_;
  std::chrono::milliseconds period_;
  std::function<bool()> active_;
  std::function<void()> pass_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool woken_ = false;
  unsigned passes_ = 0;
  unsigned woken_passes_ = 0;
  std::mutex nodes_mu_;
  std::unordered_map<std::string, uint64_t> nodes_;  // name → registration fingerprint
  std::thread thread_;
};

}  // namespace hami::scheduling
