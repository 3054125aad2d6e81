// A ClusterWatcher that writes down every notification as text, in order:
// "node+ name@rv", "node- name", "pod+ ns/name@rv", "pod- ns/name@rv",
// "quotas".
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
    add("pod+ " + pod->namespace_ + "/" + pod->name + "@" + pod->resource_version);
  }
  void pod_deleted(const std::shared_ptr<const cluster::PodRecord>& pod) override {
    add("pod- " + pod->namespace_ + "/" + pod->name + "@" + pod->resource_version);
  }
  void quotas_changed() override { add("quotas"); }

  std::vector<std::string> log() const {
    std::lock_guard guard(mu_);
    return log_;
  }
  void clear() {
    std::lock_guard guard(mu_);
    log_.clear();
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
  void add(std::string entry) {
    std::lock_guard guard(mu_);
    log_.push_back(std::move(entry));
  }
  mutable std::mutex mu_;
  std::vector<std::string> log_;
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
