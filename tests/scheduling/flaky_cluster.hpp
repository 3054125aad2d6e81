// A cluster state that forwards to another and fails writes the way an API
// server would: Binding creation, allocation writes and allocation removals
// fail on command (a 5xx; an allocation write also as refused, or as failed
// after it was stored); those and node writes (the node lock) fail at random
// at a given rate (a 5xx). Live reads fail on command; cached reads and
// events always pass. A hook sees each pod write first.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <random>
#include <string>

#include "cluster/cluster_state.hpp"

namespace hami::testing {

class FlakyCluster final : public cluster::ClusterState {
 public:
  explicit FlakyCluster(cluster::ClusterState& inner, uint32_t seed = 1)
      : inner_(inner), rng_(seed) {}

  // The Binding fails with a 5xx and its outcome is unknown (the backend
  // could not read the pod back).
  std::atomic<bool> fail_bind{false};
  // The Binding fails with a 5xx and the backend, reading the pod back,
  // found it unbound: known not stored.
  std::atomic<bool> fail_bind_unbound{false};
  // pod_live fails (the API server cannot be reached to read a pod back).
  std::atomic<bool> fail_live_reads{false};
  std::atomic<bool> fail_removal{false};
  std::atomic<bool> fail_write{false};
  // The allocation write is stored, and then reported failed (a timeout or
  // a 5xx after the server committed it).
  std::atomic<bool> fail_write_after_storing{false};
  // The allocation write is reported timed out and stored only when
  // store_deferred() is called: committed by the server, seen late.
  std::atomic<bool> defer_write{false};
  // A node write (the lock) is stored, then reported timed out.
  std::atomic<bool> fail_node_write_after_storing{false};
  // Each Binding, pod write and node write also fails with this
  // probability (0: never).
  std::atomic<double> failure_rate{0};
  std::atomic<int> injected{0};
  // Called before each pod write is forwarded (or failed), with the patch:
  // a test looks at the scheduler while a bind is in flight.
  std::function<void(const cluster::PodMetadataPatch&)> before_pod_write;
  // Called before each Binding is forwarded (or failed).
  std::function<void()> before_bind;
  // Called before each node write (the lock) is forwarded (or failed),
  // with the node's name: a test looks at the scheduler while a lock is
  // being written.
  std::function<void(std::string_view)> before_node_write;

  std::shared_ptr<const k8s::NodeModel> node(std::string_view n) const override {
    return inner_.node(n);
  }
  std::vector<std::shared_ptr<const k8s::NodeModel>> nodes() const override {
    return inner_.nodes();
  }
  std::shared_ptr<const cluster::PodRecord> pod(std::string_view ns,
                                                std::string_view n) const override {
    return inner_.pod(ns, n);
  }
  std::vector<std::shared_ptr<const cluster::PodRecord>> pods() const override {
    return inner_.pods();
  }
  std::shared_ptr<const cluster::PodRecord> pod_live(std::string_view ns,
                                                     std::string_view n) override {
    if (fail_live_reads)
      fail("injected: pod read failed");
    return inner_.pod_live(ns, n);
  }
  std::shared_ptr<const k8s::NodeModel> node_live(std::string_view n) override {
    return inner_.node_live(n);
  }
  std::vector<cluster::ResourceQuotaRecord> quotas() const override { return inner_.quotas(); }
  std::vector<cluster::NamespaceRecord> namespaces() const override { return inner_.namespaces(); }
  void watch(cluster::ClusterWatcher& w) override { inner_.watch(w); }
  void unwatch(cluster::ClusterWatcher& w) override { inner_.unwatch(w); }
  void patch_pod_metadata(std::string_view ns, std::string_view n,
                          const cluster::PodMetadataPatch& patch,
                          std::optional<std::string_view> uid) override {
    if (before_pod_write)
      before_pod_write(patch);
    bool removal = false;
    for (const auto& w : patch.annotations)
      removal = removal || !w.value;
    if ((removal && fail_removal) || chance())
      fail(removal ? "injected: pod patch failed" : "injected: pod write failed");
    if (!removal && defer_write) {
      const std::lock_guard lock(mu_);
      deferred_ = Deferred{std::string(ns), std::string(n), patch,
                           uid ? std::optional<std::string>(*uid) : std::nullopt};
      fail("injected: pod write timed out");
    }
    if (!removal && fail_write)
      fail("injected: pod write refused", cluster::ErrorKind::Conflict);
    inner_.patch_pod_metadata(ns, n, patch, uid);
    if (!removal && fail_write_after_storing)
      fail("injected: pod write timed out");
  }
  void patch_node_annotations(std::string_view n, const std::vector<cluster::MetadataWrite>& a,
                              std::optional<std::string_view> rv) override {
    if (before_node_write)
      before_node_write(n);
    if (chance())
      fail("injected: node write failed");
    inner_.patch_node_annotations(n, a, rv);
    if (fail_node_write_after_storing.exchange(false))
      fail("injected: node write timed out");
  }
  void bind(std::string_view ns, std::string_view n, std::string_view uid,
            std::string_view node) override {
    if (before_bind)
      before_bind();
    if (fail_bind || chance())
      fail("injected: binding failed");
    if (fail_bind_unbound) {
      ++injected;
      throw cluster::ClusterError(cluster::ErrorKind::Unavailable, "injected: binding failed",
                                  false);
    }
    inner_.bind(ns, n, uid, node);
  }
  void record_event(const cluster::Event& e) override { inner_.record_event(e); }

  // Stores the write defer_write held back.
  void store_deferred() {
    std::optional<Deferred> d;
    {
      const std::lock_guard lock(mu_);
      d.swap(deferred_);
    }
    if (d) {
      inner_.patch_pod_metadata(d->ns, d->name, d->patch,
                                d->uid ? std::optional<std::string_view>(*d->uid) : std::nullopt);
    }
  }

 private:
  bool chance() {
    const double rate = failure_rate.load();
    if (rate <= 0)
      return false;
    const std::lock_guard lock(mu_);
    return std::uniform_real_distribution<double>(0, 1)(rng_) < rate;
  }
  [[noreturn]] void fail(const char* what,
                         cluster::ErrorKind kind = cluster::ErrorKind::Unavailable) {
    ++injected;
    throw cluster::ClusterError(kind, what);
  }

  struct Deferred {
    std::string ns;
    std::string name;
    cluster::PodMetadataPatch patch;
    std::optional<std::string> uid;
  };

  cluster::ClusterState& inner_;
  std::mutex mu_;
  std::optional<Deferred> deferred_;
  std::mt19937 rng_;
};

}  // namespace hami::testing
