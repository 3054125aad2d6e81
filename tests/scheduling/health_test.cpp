// Node health (HAMi reference §3.3–3.4) through the scheduler's
// registration pass, the health loop, and the admission view of quotas.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <thread>

#include "scheduling/admission_view.hpp"
#include "scheduling/health_loop.hpp"
#include "scheduling_env.hpp"

namespace {

using namespace hami;
using namespace hami::testing;

std::string cluster_yaml(const std::string& allocatable) {
  std::string node = nvidia_node("gpu", 1, 8000);
  const std::string from = "nvidia.com/gpu: \"10\"\n    capacity";
  node.replace(node.find(from), from.size(),
               "nvidia.com/gpu: \"" + allocatable + "\"\n    capacity");
  return "kind: List\nitems:\n" + node + "- kind: Node\n  metadata: {name: cpu}\n";
}

std::string handshake(const SchedulingEnv& env, std::string_view node) {
  const auto v = env.cluster->node(node)->annotation("hami.io/node-handshake");
  return v ? std::string(*v) : "<none>";
}

TEST(Health, FirstPassStampsTheHandshakeOnGpuNodesOnly) {
  SchedulingEnv env(cluster_yaml("10"));
  EXPECT_EQ(handshake(env, "gpu").rfind("Requesting_", 0), 0u) << handshake(env, "gpu");
  // HAMi bug 7.7#10 stamped every node, GPU or not.
  EXPECT_EQ(handshake(env, "cpu"), "<none>");
}

TEST(Health, NodeWithoutAllocatableGoesUnhealthyAfterTheHandshakeExpires) {
  SchedulingEnv env(cluster_yaml("0"));
  const auto pod = pod_from_json(pod_json("ns", "p", "u", {{{"nvidia.com/gpu", "1"}}}));
  const std::vector<std::string> names = {"gpu"};
  EXPECT_EQ(env.scheduler->filter(pod, names).fit.size(), 1u);
  env.now += 61;
  env.scheduler->check_node_health();
  const auto out = env.scheduler->filter(pod, names);
  EXPECT_TRUE(out.fit.empty());
  EXPECT_EQ(out.unresolvable.at("gpu"), "node unregistered");
  // NVIDIA's cleanup removed the handshake; the next pass stamps it again
  // and the node is usable until that one expires (HAMi's oscillation).
  EXPECT_EQ(handshake(env, "gpu"), "<none>");
  env.scheduler->check_node_health();
  EXPECT_EQ(env.scheduler->filter(pod, names).fit.size(), 1u);
}

// HAMi's Test_CheckHealth "Requesting state expired": the vendor is not
// registered on such a node. A vendor never found healthy is not in HAMi's
// device cache, so its cleanup does not run (TestRegisterSkipsCleanupFor-
// UntrackedVendor): the expired handshake stays, and so does the verdict.
// Deleting it let the next pass stamp a fresh one and mark the node healthy.
TEST(Health, ExpiredHandshakeOfAVendorNeverFoundHealthyIsKeptAndTheNodeStaysUnhealthy) {
  std::string yaml = cluster_yaml("0");
  const std::string at = "  status:";
  yaml.insert(yaml.find(at), "      hami.io/node-handshake: \"Requesting_2020-01-01 00:00:00\"\n");
  SchedulingEnv env(yaml);  // the first pass runs here
  const auto pod = pod_from_json(pod_json("ns", "p", "u", {{{"nvidia.com/gpu", "1"}}}));
  const std::vector<std::string> names = {"gpu"};
  for (int pass = 0; pass < 3; ++pass) {
    EXPECT_EQ(handshake(env, "gpu"), "Requesting_2020-01-01 00:00:00") << "pass " << pass;
    const auto out = env.scheduler->filter(pod, names);
    ASSERT_TRUE(out.fit.empty()) << "pass " << pass;
    EXPECT_EQ(out.unresolvable.at("gpu"), "node unregistered") << "pass " << pass;
    env.now += 15;
    env.scheduler->check_node_health();
  }
}

TEST(Health, APassLetsGoOfEachNodesOldModelOnceThatNodeIsChecked) {
  // Every GPU node is patched (the handshake) by a pass; the model each
  // patch replaces must not outlive its node's turn, or a pass over a
  // thousand nodes holds two models of every node at once.
  scheduling::SchedulerOptions options;
  options.initial_health_check = false;
  SchedulingEnv env(
      "kind: List\nitems:\n" + nvidia_node("g1", 1, 8000) + nvidia_node("g2", 1, 8000), options);
  struct Probe final : cluster::ClusterWatcher {
    std::weak_ptr<const k8s::NodeModel> first_old;
    bool armed = false;
    std::optional<bool> first_old_gone_when_second_patched;
    void node_upserted(const std::shared_ptr<const k8s::NodeModel>& node) override {
      if (armed && node->name() == "g2")
        first_old_gone_when_second_patched = first_old.expired();
    }
    void node_deleted(std::string_view) override {}
    void pod_upserted(const std::shared_ptr<const cluster::PodRecord>&) override {}
    void pod_deleted(const std::shared_ptr<const cluster::PodRecord>&) override {}
    void quotas_changed() override {}
  } probe;
  env.cluster->watch(probe);
  probe.first_old = env.cluster->node("g1");
  probe.armed = true;
  env.scheduler->check_node_health();
  env.cluster->unwatch(probe);
  ASSERT_TRUE(probe.first_old_gone_when_second_patched.has_value());
  EXPECT_TRUE(*probe.first_old_gone_when_second_patched);
}

TEST(Health, LoopRunsPassesUntilDestroyed) {
  SchedulingEnv env(cluster_yaml("10"));
  scheduling::HealthLoop loop(*env.scheduler, *env.cluster, std::chrono::milliseconds(5));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (loop.passes() < 2 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_GE(loop.passes(), 2u);
}

TEST(AdmissionView, QuotaUsesLedgerUsageAndSmallestLimit) {
  const std::string yaml =
      "kind: List\nitems:\n" + nvidia_node("gpu", 2, 8000) + R"(- kind: ResourceQuota
  metadata: {name: a, namespace: team}
  spec: {hard: {limits.nvidia.com/gpumem: "8k", limits.nvidia.com/gpucores: "300", requests.nvidia.com/gpumem: "1"}}
- kind: ResourceQuota
  metadata: {name: b, namespace: team}
  spec: {hard: {limits.nvidia.com/gpumem: "6000", limits.nvidia.com/gpu: "4", limits.amd.com/gpumem: "1.5"}}
- kind: Namespace
  metadata: {name: team, labels: {vgpu.admission: enabled}}
- kind: Pod
  metadata: {name: init-peak, namespace: team, uid: u1, annotations: {hami.io/vgpu-node: gpu, hami.io/vgpu-devices-allocated: "GPU-gpu-0,NVIDIA,3000,30:;GPU-gpu-0,NVIDIA,1000,10:GPU-gpu-1,NVIDIA,1000,10:;"}}
  spec: {initContainers: [{name: i}], containers: [{name: c}]}
)";
  SchedulingEnv env(yaml);
  scheduling::LedgerAdmissionView view(env.scheduler->ledger(), *env.cluster,
                                       env.registry.devices());
  const auto quota = view.quota("team");
  ASSERT_TRUE(quota);
  // "8k" = 8000 vs 6000: the smaller one holds; requests.* and counts ignored;
  // a fractional AMD limit is ignored.
  EXPECT_EQ(quota->hard, (std::map<std::string, int64_t, std::less<>>{
                             {"nvidia.com/gpucores", 300}, {"nvidia.com/gpumem", 6000}}));
  // Per device: GPU-0 max(3000, 1000) + GPU-1 1000 = 4000 MiB; cores 30 + 10.
  EXPECT_EQ(quota->used.at("nvidia.com/gpumem"), 4000);
  EXPECT_EQ(quota->used.at("nvidia.com/gpucores"), 40);
  EXPECT_FALSE(view.quota("other"));
  EXPECT_EQ(view.namespace_label("team", "vgpu.admission"), "enabled");
  EXPECT_FALSE(view.namespace_label("team", "missing"));
  EXPECT_FALSE(view.namespace_label("nowhere", "vgpu.admission"));
}

}  // namespace
