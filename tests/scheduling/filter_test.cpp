// HAMi's scheduler core tests (reference §8.3, pkg/scheduler/scheduler_test.go)
// ported to the scheduling core with the real nvidia.so and hami-policies.so.
#include <gtest/gtest.h>

#include "scheduling_env.hpp"

namespace {

using namespace hami;
using namespace hami::testing;
using scheduling::AllocateAt;
using scheduling::SchedulerOptions;

// Test_Filter: two nodes with two 8000 MiB GPUs each; node1 runs a
// 2000 MiB / 25 % pod on device1, node2 a 6000 MiB / 75 % pod on device4.
constexpr const char* kTwoNodes = R"(
kind: List
items:
- kind: Node
  metadata:
    name: node1
    annotations:
      hami.io/node-nvidia-register: '[{"id":"device1","count":10,"devmem":8000,"devcore":100,"type":"NVIDIA","health":true},{"id":"device2","index":1,"count":10,"devmem":8000,"devcore":100,"type":"NVIDIA","health":true}]'
  status: {allocatable: {nvidia.com/gpu: "20"}}
- kind: Node
  metadata:
    name: node2
    annotations:
      hami.io/node-nvidia-register: '[{"id":"device3","count":10,"devmem":8000,"devcore":100,"type":"NVIDIA","health":true},{"id":"device4","index":1,"count":10,"devmem":8000,"devcore":100,"type":"NVIDIA","health":true}]'
  status: {allocatable: {nvidia.com/gpu: "20"}}
- kind: Pod
  metadata:
    name: running1
    namespace: default
    uid: uid-running1
    annotations:
      hami.io/vgpu-node: node1
      hami.io/vgpu-devices-allocated: "device1,NVIDIA,2000,25:;"
  spec:
    nodeName: node1
    containers: [{name: c, resources: {limits: {nvidia.com/gpu: "1"}}}]
  status: {phase: Running}
- kind: Pod
  metadata:
    name: running2
    namespace: default
    uid: uid-running2
    annotations:
      hami.io/vgpu-node: node2
      hami.io/vgpu-devices-allocated: "device4,NVIDIA,6000,75:;"
  spec:
    nodeName: node2
    containers: [{name: c, resources: {limits: {nvidia.com/gpu: "1"}}}]
  status: {phase: Running}
)";

const Limits kOneGpu = {
    {"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "1000"}, {"nvidia.com/gpucores", "20"}};
const std::vector<std::string> kNames = {"node1", "node2"};

struct Case {
  std::string node_policy;
  std::string gpu_policy;
  std::vector<Limits> init;
  std::string node;
  std::string allocated;
  Limits app = kOneGpu;
};

class HamiTestFilter : public ::testing::TestWithParam<Case> {};

TEST_P(HamiTestFilter, FilterModePicksHamisNodeAndDevice) {
  const Case& c = GetParam();
  SchedulerOptions options;
  options.allocate_at = AllocateAt::Filter;
  options.node_policy = c.node_policy;
  options.gpu_policy = c.gpu_policy;
  SchedulingEnv env(kTwoNodes, options);
  const std::string json = pod_json("default", "p", "uid-p", {c.app}, c.init);
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  env.cluster->upsert(doc);

  const auto pod = pod_from_json(json);
  const auto out = env.scheduler->filter(pod, kNames);
  ASSERT_EQ(out.error, "");
  ASSERT_EQ(out.fit.size(), 1u);
  EXPECT_EQ(kNames[out.fit[0]], c.node);
  EXPECT_TRUE(out.failed.empty());
  EXPECT_EQ(env.annotation("default", "p", "hami.io/vgpu-node"), c.node);
  EXPECT_EQ(env.annotation("default", "p", "hami.io/vgpu-devices-allocated"), c.allocated);
  EXPECT_EQ(env.annotation("default", "p", "hami.io/vgpu-devices-to-allocate"), c.allocated);
  EXPECT_EQ(env.annotation("default", "p", "hami.io/vgpu-time"), std::to_string(kStartTime));
  EXPECT_EQ(env.cluster->pod("default", "p")->model->view().labels_len, 1u);
}

// allocateAt: bind — a bind to HAMi's node allocates HAMi's devices.
TEST_P(HamiTestFilter, BindModeBindsHamisDevice) {
  const Case& c = GetParam();
  SchedulerOptions options;
  options.node_policy = c.node_policy;
  options.gpu_policy = c.gpu_policy;
  SchedulingEnv env(kTwoNodes, options);
  const std::string json = pod_json("default", "p", "uid-p", {c.app}, c.init);
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  env.cluster->upsert(doc);
  ASSERT_EQ(env.scheduler->bind("default", "p", "uid-p", c.node), "");
  EXPECT_EQ(env.annotation("default", "p", "hami.io/vgpu-devices-allocated"), c.allocated);
}

INSTANTIATE_TEST_SUITE_P(
    Policies, HamiTestFilter,
    ::testing::Values(Case{"binpack", "binpack", {}, "node2", "device4,NVIDIA,1000,20:;"},
                      Case{"binpack", "spread", {}, "node2", "device3,NVIDIA,1000,20:;"},
                      Case{"spread", "binpack", {}, "node1", "device1,NVIDIA,1000,20:;"},
                      Case{"spread", "spread", {}, "node1", "device2,NVIDIA,1000,20:;"},
                      // HAMi's init case: neither the init container (5000 MiB) nor the
                      // app container (4000 MiB) fits device4 (2000 MiB free); node
                      // binpack still prefers the busier node2.
                      Case{"binpack",
                           "binpack",
                           {{{"nvidia.com/gpu", "1"},
                             {"nvidia.com/gpumem", "5000"},
                             {"nvidia.com/gpucores", "20"}}},
                           "node2",
                           "device3,NVIDIA,5000,20:;device3,NVIDIA,4000,20:;",
                           {{"nvidia.com/gpu", "1"},
                            {"nvidia.com/gpumem", "4000"},
                            {"nvidia.com/gpucores", "20"}}},
                      // A smaller app container (1000 MiB) fits device4, and binpack
                      // puts it on the busier device.
                      Case{"binpack",
                           "binpack",
                           {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "5000"}}},
                           "node2",
                           "device3,NVIDIA,5000,0:;device4,NVIDIA,1000,20:;"}),
    [](const auto& param_info) {
      return param_info.param.node_policy + "_" + param_info.param.gpu_policy +
             (param_info.param.init.empty() ? "" : "_init_app" + param_info.param.app[1].second);
    });

TEST(Filter, BindModeReturnsEveryFittingNodeWithoutSideEffects) {
  SchedulingEnv env(kTwoNodes);
  const auto pod = pod_from_json(pod_json("default", "p", "uid-p", {kOneGpu}));
  const auto out = env.scheduler->filter(pod, kNames);
  ASSERT_EQ(out.error, "");
  EXPECT_EQ(out.fit, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(env.scheduler->ledger().read()->pod("uid-p"), nullptr);
  const auto events = env.cluster->events();
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().reason, "FilteringSucceed");
  EXPECT_EQ(events.back().type, "Normal");
  EXPECT_EQ(events.back().component, "hami-scheduler");
  // binpack node scores: node1 10 % busy on average, node2 26.67 %.
  EXPECT_EQ(events.back().message,
            "find fit node(node2), 0 nodes not fit, 2 nodes fit(node1:10.00,node2:26.67)");
}

TEST(Filter, RejectionsCarryHamiReasonsAndEvents) {
  SchedulingEnv env(kTwoNodes);
  // 7500 MiB fits nowhere: device1 has 6000 free, device4 2000, the empty
  // devices 8000 — but ask for two such GPUs.
  const auto pod = pod_from_json(pod_json(
      "default", "p", "uid-p", {{{"nvidia.com/gpu", "2"}, {"nvidia.com/gpumem", "7500"}}}));
  const std::vector<std::string> names = {"node1", "node2", "cpu-node"};
  const auto out = env.scheduler->filter(pod, names);
  EXPECT_TRUE(out.fit.empty());
  ASSERT_EQ(out.failed.size(), 2u);
  // One device of each node fits, so the second pick fails (HAMi's
  // AllocatedCardsInsufficientRequest counts the devices picked).
  EXPECT_EQ(out.failed.at("node1"),
            "1/2 AllocatedCardsInsufficientRequest, 1/2 CardInsufficientMemory");
  EXPECT_EQ(out.failed.at("node2"),
            "1/2 AllocatedCardsInsufficientRequest, 1/2 CardInsufficientMemory");
  ASSERT_EQ(out.unresolvable.size(), 1u);
  EXPECT_EQ(out.unresolvable.at("cpu-node"), "node unregistered");
  const auto events = env.cluster->events();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].reason, "FilteringFailed");
  EXPECT_EQ(events[0].type, "Warning");
  EXPECT_EQ(events[0].message, "2 nodes AllocatedCardsInsufficientRequest(node1,node2)");
  EXPECT_EQ(events[1].message, "2 nodes CardInsufficientMemory(node1,node2)");
  EXPECT_EQ(events[2].message, "no available node, 3 nodes do not meet");
}

TEST(Filter, AppContainersAccumulateInitContainersDoNot) {
  // One GPU of 8000 MiB, 10 slots.
  SchedulingEnv env("kind: List\nitems:\n" + nvidia_node("solo", 1, 8000));
  const std::vector<std::string> names = {"solo"};
  const auto mib = [](const char* memory) {
    return Limits{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", memory}};
  };
  const auto fit = [&](const char* uid, const std::vector<Limits>& app,
                       const std::vector<Limits>& init) {
    const auto out =
        env.scheduler->filter(pod_from_json(pod_json("default", uid, uid, app, init)), names);
    EXPECT_EQ(out.error, "");
    return out.fit.empty() ? out.failed.at("solo") : std::string("fits");
  };
  // Each app container takes its share of the GPU from what the earlier
  // ones left.
  EXPECT_EQ(fit("two-app", {mib("5000"), mib("5000")}, {}), "1/1 CardInsufficientMemory");
  EXPECT_EQ(fit("three-app", {mib("3000"), mib("3000"), mib("3000")}, {}),
            "1/1 CardInsufficientMemory");
  EXPECT_EQ(fit("exact", {mib("3000"), mib("3000"), mib("2000")}, {}), "fits");
  EXPECT_EQ(fit("cpu-between", {mib("5000"), {{"cpu", "1"}}, mib("5000")}, {}),
            "1/1 CardInsufficientMemory");
  // Init containers each start from the node's usage and leave it as it
  // was for the next one and for the app containers.
  EXPECT_EQ(fit("init-then-app", {mib("5000")}, {mib("5000")}), "fits");
  EXPECT_EQ(fit("two-init", {mib("3000")}, {mib("6000"), mib("6000")}), "fits");
  EXPECT_EQ(fit("big-init", {mib("3000")}, {mib("9000")}), "1/1 CardInsufficientMemory");
}

TEST(Filter, TooFewDevicesIsUnresolvable) {
  SchedulingEnv env(kTwoNodes);
  const auto pod = pod_from_json(pod_json("default", "p", "uid-p", {{{"nvidia.com/gpu", "3"}}}));
  const auto out = env.scheduler->filter(pod, kNames);
  EXPECT_TRUE(out.failed.empty());
  EXPECT_EQ(out.unresolvable.at("node1"), "NodeInsufficientDevice");
  EXPECT_EQ(out.unresolvable.at("node2"), "NodeInsufficientDevice");
}

TEST(Filter, PodWithoutManagedResourcePassesThrough) {
  SchedulingEnv env(kTwoNodes);
  const auto pod = pod_from_json(pod_json("default", "p", "uid-p", {{{"cpu", "1"}}}));
  const auto out = env.scheduler->filter(pod, kNames);
  EXPECT_TRUE(out.passthrough);
  EXPECT_TRUE(env.cluster->events().empty());
}

// HAMi 7.7#8: a value the device plugin cannot read (8Gi where MiB are
// read) dropped the request, and the pod passed every node, GPU-less ones
// included. The webhook denies such pods; one that reaches filter anyway
// (created before the webhook, or with failurePolicy Ignore) fails the
// call with the plugin's message, and explain says the same.
TEST(Filter, UnusableValueFailsTheCallInsteadOfPassingEveryNode) {
  SchedulingEnv env(kTwoNodes);
  const auto pod = pod_from_json(
      pod_json("default", "p", "uid-p", {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "8Gi"}}}));
  const std::string message =
      "invalid nvidia.com/gpumem value 8Gi in container c0: must be an integer number of MiB "
      "between 0 and 2147483647";
  const auto out = env.scheduler->filter(pod, kNames);
  EXPECT_FALSE(out.passthrough);
  EXPECT_EQ(out.error, message);
  ASSERT_EQ(env.cluster->events().size(), 1u);
  EXPECT_EQ(env.cluster->events()[0].message, message);
  const auto explained = env.scheduler->explain(pod, kNames);
  EXPECT_EQ(explained.error, message);
  EXPECT_TRUE(explained.nodes.empty());
}

TEST(Filter, EmptyCandidateListIsNotACrash) {
  // HAMi bug 7.7#6: a null NodeNames list panicked while writing the event.
  SchedulingEnv env(kTwoNodes);
  const auto pod = pod_from_json(pod_json("default", "p", "uid-p", {kOneGpu}));
  const auto out = env.scheduler->filter(pod, std::vector<std::string>{});
  EXPECT_TRUE(out.fit.empty());
  EXPECT_EQ(out.error, "");
  ASSERT_EQ(env.cluster->events().size(), 1u);
  EXPECT_EQ(env.cluster->events()[0].message, "no available node, 0 nodes do not meet");
}

TEST(Filter, InvalidScoringWeightsFailTheCall) {
  SchedulingEnv env(kTwoNodes);
  const auto pod = pod_from_json(pod_json("default", "p", "uid-p", {kOneGpu}, {},
                                          R"({"hami.io/device-scoring-weights":"slot=1,core=1"})"));
  const auto out = env.scheduler->filter(pod, kNames);
  EXPECT_EQ(out.error,
            "calcScore failed invalid hami.io/device-scoring-weights annotation "
            "\"slot=1,core=1\": expected slot, core, and memory weights for pod p");
}

TEST(Filter, PodAnnotationsOverridePolicies) {
  SchedulerOptions options;
  options.allocate_at = AllocateAt::Filter;  // binpack / spread configured
  SchedulingEnv env(kTwoNodes, options);
  const std::string json = pod_json(
      "default", "p", "uid-p", {kOneGpu}, {},
      R"({"hami.io/node-scheduler-policy":"spread","hami.io/gpu-scheduler-policy":" binpack "})");
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  env.cluster->upsert(doc);
  const auto out = env.scheduler->filter(pod_from_json(json), kNames);
  ASSERT_EQ(out.fit.size(), 1u);
  EXPECT_EQ(kNames[out.fit[0]], "node1");
  EXPECT_EQ(env.annotation("default", "p", "hami.io/vgpu-devices-allocated"),
            "device1,NVIDIA,1000,20:;");
}

TEST(Filter, UnknownPolicyAnnotationIsIgnored) {
  SchedulerOptions options;
  options.allocate_at = AllocateAt::Filter;
  SchedulingEnv env(kTwoNodes, options);
  const std::string json = pod_json(
      "default", "p", "uid-p", {kOneGpu}, {},
      R"({"hami.io/node-scheduler-policy":"fastest","hami.io/gpu-scheduler-policy":"binpack,bogus"})");
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  env.cluster->upsert(doc);
  const auto out = env.scheduler->filter(pod_from_json(json), kNames);
  ASSERT_EQ(out.fit.size(), 1u);
  // The configured binpack / spread decide.
  EXPECT_EQ(kNames[out.fit[0]], "node2");
  EXPECT_EQ(env.annotation("default", "p", "hami.io/vgpu-devices-allocated"),
            "device3,NVIDIA,1000,20:;");
}

TEST(Filter, RefilterReleasesThePodsOwnEarlierReservation) {
  // Test_Filter_EvictsStaleEntry: filtering again must not count the pod's
  // previous allocation against itself.
  SchedulerOptions options;
  options.allocate_at = AllocateAt::Filter;
  SchedulingEnv env(R"(
kind: List
items:
)" + nvidia_node("solo", 1, 8000),
                    options);
  const std::string json =
      pod_json("default", "p", "uid-p", {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "6000"}}});
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  env.cluster->upsert(doc);
  const std::vector<std::string> names = {"solo"};
  ASSERT_EQ(env.scheduler->filter(pod_from_json(json), names).fit.size(), 1u);
  const auto again = env.scheduler->filter(pod_from_json(json), names);
  ASSERT_EQ(again.fit.size(), 1u) << (again.failed.empty() ? "" : again.failed.begin()->second);
  const auto snapshot = env.scheduler->ledger().read();
  const auto* entry = snapshot->node("solo");
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->use[0][0].memory_mib, 6000);
  EXPECT_EQ(entry->use[0][0].used, 1);
}

}  // namespace
