#include "scheduling/health_loop.hpp"

#include <functional>

#include "hami/plugin.hpp"
#include "platform/text_hash.hpp"

namespace hami::scheduling {

HealthLoop::HealthLoop(Scheduler& scheduler, cluster::ClusterState& cluster,
                       std::chrono::milliseconds period, std::function<bool()> active,
                       std::function<void()> pass)
    : scheduler_(scheduler),
      cluster_(cluster),
      period_(period),
      active_(std::move(active)),
      pass_(std::move(pass)) {
  cluster_.watch(*this);
  thread_ = std::thread([this] { run(); });
}

HealthLoop::~HealthLoop() {
  cluster_.unwatch(*this);
  {
    std::lock_guard guard(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void HealthLoop::wake() {
  {
    std::lock_guard guard(mu_);
    woken_ = true;
  }
  cv_.notify_all();
}

unsigned HealthLoop::passes() const {
  std::lock_guard guard(mu_);
  return passes_;
}

unsigned HealthLoop::woken_passes() const {
  std::lock_guard guard(mu_);
  return woken_passes_;
}

void HealthLoop::run() {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait_for(lock, period_, [this] { return stop_ || woken_; });
    if (stop_)
      return;
    const bool by_wake = woken_;
    // Cleared before the pass: a change during the pass asks for another.
    woken_ = false;
    lock.unlock();
    const bool active = !active_ || active_();
    if (active) {
      if (pass_)
        pass_();
      else
        scheduler_.check_node_health();
    }
    lock.lock();
    if (active) {
      ++passes_;
      if (by_wake)
        ++woken_passes_;
    }
  }
}

uint64_t HealthLoop::node_fingerprint(const k8s::NodeModel& node) const {
  uint64_t h = 0;
  const auto mix = [&h](std::string_view s) { platform::hash_append(h, s); };
  for (const auto& plugin : scheduler_.devices()) {
    const std::string& key = plugin.description().register_annotation;
    const auto value = node.annotation(key);
    mix(key);
    mix(value ? *value
              : std::string_view("\x01"
                                 "absent"));
  }
  const hami_node_view& view = node.view();
  mix("\x02"
      "allocatable");
  for (size_t i = 0; i < view.allocatable_len; ++i) {
    mix(to_sv(view.allocatable[i].key));
    mix(to_sv(view.allocatable[i].value));
  }
  mix("\x02"
      "capacity");
  for (size_t i = 0; i < view.capacity_len; ++i) {
    mix(to_sv(view.capacity[i].key));
    mix(to_sv(view.capacity[i].value));
  }
  return h;
}

void HealthLoop::node_upserted(const std::shared_ptr<const k8s::NodeModel>& node) {
  const uint64_t fp = node_fingerprint(*node);
  bool changed = false;
  {
    std::lock_guard guard(nodes_mu_);
    auto [it, inserted] = nodes_.try_emplace(std::string(node->name()), fp);
    changed = inserted || it->second != fp;
    it->second = fp;
  }
  if (changed)
    wake();
}

void HealthLoop::node_deleted(std::string_view name) {
  {
    std::lock_guard guard(nodes_mu_);
    nodes_.erase(std::string(name));
  }
  wake();
}

}  // namespace hami::scheduling
