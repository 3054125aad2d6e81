// A bind that fails after writing the allocation and cannot remove it
// again: the pod still carries the allocation annotations (the source of
// truth for usage), so the ledger must keep counting it — otherwise the next
// pod is handed the same room.
#include <gtest/gtest.h>

#include <atomic>

#include "scheduling_env.hpp"

namespace {

using namespace hami;
using namespace hami::testing;

// Forwards to the file backend; Binding creation, allocation writes and
// allocation removals fail on command, as an API server answering 500 would
// make them.
class FlakyCluster final : public cluster::ClusterState {
 public:
  explicit FlakyCluster(cluster::ClusterState& inner) : inner_(inner) {}
  std::atomic<bool> fail_bind{false};
  std::atomic<bool> fail_removal{false};
  std::atomic<bool> fail_write{false};

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
  std::vector<cluster::ResourceQuotaRecord> quotas() const override { return inner_.quotas(); }
  std::vector<cluster::NamespaceRecord> namespaces() const override { return inner_.namespaces(); }
  void watch(cluster::ClusterWatcher& w) override { inner_.watch(w); }
  void unwatch(cluster::ClusterWatcher& w) override { inner_.unwatch(w); }
  void patch_pod_metadata(std::string_view ns, std::string_view n,
                          const cluster::PodMetadataPatch& patch,
                          std::optional<std::string_view> uid) override {
    bool removal = false;
    for (const auto& w : patch.annotations)
      removal = removal || !w.value;
    if (removal && fail_removal)
      throw cluster::ClusterError(cluster::ErrorKind::Unavailable, "injected: pod patch failed");
    if (!removal && fail_write)
      throw cluster::ClusterError(cluster::ErrorKind::Unavailable, "injected: pod write failed");
    inner_.patch_pod_metadata(ns, n, patch, uid);
  }
  void patch_node_annotations(std::string_view n, const std::vector<cluster::MetadataWrite>& a,
                              std::optional<std::string_view> rv) override {
    inner_.patch_node_annotations(n, a, rv);
  }
  void bind(std::string_view ns, std::string_view n, std::string_view uid,
            std::string_view node) override {
    if (fail_bind)
      throw cluster::ClusterError(cluster::ErrorKind::Unavailable, "injected: binding failed");
    inner_.bind(ns, n, uid, node);
  }
  void record_event(const cluster::Event& e) override { inner_.record_event(e); }

 private:
  cluster::ClusterState& inner_;
};

TEST(FailedBind, AllocationThatCouldNotBeRemovedStillCounts) {
  SchedulingEnv env("kind: List\nitems:\n" + nvidia_node("gpu-a", 1, 8000));
  FlakyCluster flaky(*env.cluster);
  scheduling::SchedulerOptions options;
  options.clock = [&env] { return env.now.load(); };
  scheduling::Scheduler scheduler(flaky, env.registry.devices(), env.registry.scheduling(),
                                  options);
  const Limits big = {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "6000"}};
  for (const char* name : {"p", "q"}) {
    rapidjson::Document doc;
    doc.Parse(pod_json("ml", name, std::string("uid-") + name, {big}).c_str());
    env.cluster->upsert(doc);
  }

  flaky.fail_bind = true;
  flaky.fail_removal = true;
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "injected: binding failed");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"),
            "GPU-gpu-a-0,NVIDIA,6000,0:;");
  // The lock is released all the same.
  EXPECT_FALSE(env.cluster->node("gpu-a")->annotation("hami.io/mutex.lock"));

  const std::vector<std::string> names = {"gpu-a"};
  const auto q = pod_from_json(pod_json("ml", "q", "uid-q", {big}));
  EXPECT_TRUE(scheduler.filter(q, names).fit.empty());
  flaky.fail_bind = false;
  EXPECT_NE(scheduler.bind("ml", "q", "uid-q", "gpu-a"), "");
  EXPECT_EQ(env.cluster->pod("ml", "q")->node_name, "");

  // The retried bind of p (kube-scheduler retries) reuses its own room.
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "");
  EXPECT_EQ(env.cluster->pod("ml", "p")->node_name, "gpu-a");
}

// The retry of such a bind fails before its own allocation is written:
// the pod still carries the first attempt's allocation, so dropping the
// retry's reservation must leave that charge in place.
TEST(FailedBind, FailedRetryKeepsTheAllocationStillWritten) {
  SchedulingEnv env("kind: List\nitems:\n" + nvidia_node("gpu-a", 1, 8000));
  FlakyCluster flaky(*env.cluster);
  scheduling::SchedulerOptions options;
  options.clock = [&env] { return env.now.load(); };
  scheduling::Scheduler scheduler(flaky, env.registry.devices(), env.registry.scheduling(),
                                  options);
  const Limits big = {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "6000"}};
  for (const char* name : {"p", "q"}) {
    rapidjson::Document doc;
    doc.Parse(pod_json("ml", name, std::string("uid-") + name, {big}).c_str());
    env.cluster->upsert(doc);
  }

  flaky.fail_bind = true;
  flaky.fail_removal = true;
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "injected: binding failed");
  flaky.fail_bind = false;
  flaky.fail_removal = false;
  flaky.fail_write = true;
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "injected: pod write failed");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"),
            "GPU-gpu-a-0,NVIDIA,6000,0:;");
  {
    const auto snapshot = scheduler.ledger().read();
    const scheduling::PodCharge* charge = snapshot->pod("uid-p");
    ASSERT_NE(charge, nullptr);
    EXPECT_FALSE(charge->reservation);
    EXPECT_EQ(charge->node, "gpu-a");
  }

  flaky.fail_write = false;
  const std::vector<std::string> names = {"gpu-a"};
  const auto q = pod_from_json(pod_json("ml", "q", "uid-q", {big}));
  const auto out = scheduler.filter(q, names);
  EXPECT_TRUE(out.fit.empty());
  EXPECT_NE(scheduler.bind("ml", "q", "uid-q", "gpu-a"), "");
  EXPECT_EQ(env.cluster->pod("ml", "q")->node_name, "");
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "");
}

TEST(FailedBind, RemovedAllocationFreesTheRoom) {
  SchedulingEnv env("kind: List\nitems:\n" + nvidia_node("gpu-a", 1, 8000));
  FlakyCluster flaky(*env.cluster);
  scheduling::SchedulerOptions options;
  options.clock = [&env] { return env.now.load(); };
  scheduling::Scheduler scheduler(flaky, env.registry.devices(), env.registry.scheduling(),
                                  options);
  const Limits big = {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "6000"}};
  for (const char* name : {"p", "q"}) {
    rapidjson::Document doc;
    doc.Parse(pod_json("ml", name, std::string("uid-") + name, {big}).c_str());
    env.cluster->upsert(doc);
  }
  flaky.fail_bind = true;
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "injected: binding failed");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"), "<none>");
  flaky.fail_bind = false;
  EXPECT_EQ(scheduler.bind("ml", "q", "uid-q", "gpu-a"), "");
}

}  // namespace
