// A ClusterWatcher that writes down every notification as text, in order:
// "node+ name@rv", "node- name", "pod+ ns/name@rv", "pod- ns/name@rv",
// "quotas"; and the pod ones apart with their uid (pod_uids).
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cluster/cluster_state.hpp"

namespace hami::kube::testing {

class RecordingWatcher final : public cluster::ClusterWatcher {
 public:
  void node_upserted(const std::shared_ptr<const k8s::NodeModel>& node) override {
    add("node+ " + std::string(node->name()) + "@" + std::string(node->resource_version()));
  }
  void node_deleted(std::string_view name) override { add("node- " + std::string(name)); }
  void pod_upserted(const std::shared_ptr<const cluster::PodRecord>& pod) override {
    add("pod+ " + pod->namespace_ + "/" + pod->name + "@" + pod->resource_version,
        "pod+ " + pod->namespace_ + "/" + pod->name + " " + pod->uid + " " + pod->node_name);
  }
  void pod_deleted(const std::shared_ptr<const cluster::PodRecord>& pod) override {
    add("pod- " + pod->namespace_ + "/" + pod->name + "@" + pod->resource_version,
        "pod- " + pod->namespace_ + "/" + pod->name + " " + pod->uid + " " + pod->node_name);
  }
  void quotas_changed() override { add("quotas"); }

  std::vector<std::string> log() const {
    std::lock_guard guard(mu_);
    return log_;
  }
  // The pod notifications only, naming uid and node:
  // "pod+ ns/name uid node", "pod- ns/name uid node" (node empty: unbound).
  std::vector<std::string> pod_uids() const {
    std::lock_guard guard(mu_);
    return pod_uids_;
  }
  void clear() {
    std::lock_guard guard(mu_);
    log_.clear();
    pod_uids_.clear();
  }
  // Entries starting with `prefix`, in order.
  std::vector<std::string> matching(const std::string& prefix) const {
    std::lock_guard guard(mu_);
    std::vector<std::string> out;
    for (const auto& e : log_) {
      if (e.starts_with(prefix))
        out.push_back(e);
    }
    return out;
  }

 private:
  void add(std::string entry, std::string pod_entry = {}) {
    std::lock_guard guard(mu_);
    log_.push_back(std::move(entry));
    if (!pod_entry.empty())
      pod_uids_.push_back(std::move(pod_entry));
  }
  mutable std::mutex mu_;
  std::vector<std::string> log_;
  std::vector<std::string> pod_uids_;
};

// Polls `condition` every few milliseconds until it holds or `timeout`
// passes; returns whether it held.
template <typename Condition>
bool eventually(Condition condition,
                std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (condition())
      return true;
    if (std::chrono::steady_clock::now() >= deadline)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace hami::kube::testing
