// HAMi's Test_calcScore / Test_fitInDevices / topology / quota cases
// (reference §8.3–8.4) through the scheduler with the real plugins.
#include <gtest/gtest.h>

#include "scheduling_env.hpp"

namespace {

using namespace hami;
using namespace hami::testing;
using scheduling::AllocateAt;
using scheduling::SchedulerOptions;

SchedulerOptions filter_mode(std::string gpu_policy = "spread",
                             std::string node_policy = "binpack") {
  SchedulerOptions o;
  o.allocate_at = AllocateAt::Filter;
  o.gpu_policy = std::move(gpu_policy);
  o.node_policy = std::move(node_policy);
  return o;
}

// Runs a filter-mode filter of `json` over `names` and returns
// "<node> <allocated>" or "fail: <reasons>".
std::string place(SchedulingEnv& env, const std::string& json, std::vector<std::string> names,
                  const std::string& annotation = "hami.io/vgpu-devices-allocated") {
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  env.cluster->upsert(doc);
  const auto pod = pod_from_json(json);
  const auto out = env.scheduler->filter(pod, names);
  if (!out.error.empty())
    return "error: " + out.error;
  if (out.fit.empty()) {
    std::string reasons;
    for (const auto* m : {&out.failed, &out.unresolvable}) {
      for (const auto& [n, r] : *m)
        reasons += n + "=" + r + ";";
    }
    return "fail: " + reasons;
  }
  const std::string ns(pod.view().namespace_.ptr, pod.view().namespace_.len);
  const std::string name(pod.view().name.ptr, pod.view().name.len);
  return names[out.fit[0]] + " " + env.annotation(ns, name, annotation);
}

std::string two_gpu_node(const std::string& name, int64_t mem = 8000) {
  return "kind: List\nitems:\n" + nvidia_node(name, 2, mem, "NVIDIA");
}

const Limits kHalf = {
    {"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "4000"}, {"nvidia.com/gpucores", "50"}};

TEST(CalcScore, SpreadPutsTwoContainersOnDifferentDevices) {
  SchedulingEnv env(two_gpu_node("n1"), filter_mode("spread"));
  EXPECT_EQ(place(env, pod_json("ns", "p", "u", {kHalf, kHalf}), {"n1"}),
            "n1 GPU-n1-1,NVIDIA,4000,50:;GPU-n1-0,NVIDIA,4000,50:;");
}

TEST(CalcScore, BinpackPutsTheSecondContainerOnTheSameDevice) {
  SchedulingEnv env(two_gpu_node("n1"), filter_mode("binpack"));
  // Idle devices tie; HAMi breaks the tie by NUMA and walks from the end.
  EXPECT_EQ(place(env, pod_json("ns", "p", "u", {kHalf, kHalf}), {"n1"}),
            "n1 GPU-n1-1,NVIDIA,4000,50:;GPU-n1-1,NVIDIA,4000,50:;");
}

// TestDevices_Fit "fit success" (dev-0 and dev-1, both registered at index
// 0, idle) after the ordering: HAMi sorts before Fit, every policy leaves
// the two tied, and Fit takes dev-1, the last one.
TEST(CalcScore, DevicesFitSuccessTakesTheLastTiedDeviceUnderEveryPolicy) {
  const std::string yaml = R"(
kind: List
items:
- kind: Node
  metadata:
    name: n1
    annotations:
      hami.io/node-nvidia-register: '[{"id":"dev-0","count":100,"devmem":128,"devcore":100,"type":"NVIDIA","health":true},{"id":"dev-1","count":100,"devmem":128,"devcore":100,"type":"NVIDIA","health":true}]'
  status: {allocatable: {nvidia.com/gpu: "200"}}
)";
  const Limits request = {
      {"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "64"}, {"nvidia.com/gpucores", "50"}};
  for (const char* policy :
       {"binpack", "spread", "mutex", "numa", "binpack,numa", "spread,numa", "mutex,spread"}) {
    for (const char* numa_bind : {"false", "true"}) {
      SchedulingEnv env(yaml, filter_mode(policy));
      EXPECT_EQ(place(env,
                      pod_json("ns", "p", "u", {request}, {},
                               std::string(R"({"nvidia.com/numa-bind":")") + numa_bind + "\"}"),
                      {"n1"}),
                "n1 dev-1,NVIDIA,64,50:;")
          << policy << " numa-bind " << numa_bind;
    }
  }
}

TEST(CalcScore, ContainerWithoutRequestKeepsItsEmptySegment) {
  // The first init container and the middle app container ask for nothing
  // (HAMi #1667 slot alignment, and bug 7.7#1 on model-name types).
  SchedulingEnv env("kind: List\nitems:\n" + nvidia_node("n1", 1, 8000), filter_mode());
  EXPECT_EQ(
      place(env, pod_json("ns", "p", "u", {kHalf, {{"cpu", "1"}}, kHalf}, {{{"cpu", "1"}}, kHalf}),
            {"n1"}),
      "n1 ;GPU-n1-0,NVIDIA,4000,50:;GPU-n1-0,NVIDIA,4000,50:;;GPU-n1-0,NVIDIA,4000,50:;");
}

TEST(CalcScore, InitContainerLargerThanAnyDeviceFiltersTheNode) {
  SchedulingEnv env(two_gpu_node("n1"), filter_mode());
  EXPECT_EQ(place(env,
                  pod_json("ns", "p", "u", {kHalf},
                           {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "9000"}}}),
                  {"n1"}),
            "fail: n1=2/2 CardInsufficientMemory;");
}

TEST(CalcScore, InitAndAppContainersReuseCapacity) {
  // The init container's 6000 MiB is gone by the time the app container
  // starts: both fit on one 8000 MiB device (init capacity reset).
  SchedulingEnv env("kind: List\nitems:\n" + nvidia_node("n1", 1, 8000), filter_mode());
  EXPECT_EQ(
      place(env,
            pod_json("ns", "p", "u", {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "6000"}}},
                     {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "6000"}}}),
            {"n1"}),
      "n1 GPU-n1-0,NVIDIA,6000,0:;GPU-n1-0,NVIDIA,6000,0:;");
  // Two app containers of 6000 MiB do not.
  EXPECT_EQ(place(env,
                  pod_json("ns", "q", "u2",
                           {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "6000"}},
                            {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "6000"}}}),
                  {"n1"}),
            "fail: n1=1/1 CardInsufficientMemory;");
}

TEST(CalcScore, TwoDevicesForOneContainerAndExclusiveCards) {
  SchedulingEnv env(two_gpu_node("n1"), filter_mode());
  // Whole cards (count only → 100 % memory, cores default).
  EXPECT_EQ(place(env, pod_json("ns", "p", "u", {{{"nvidia.com/gpu", "2"}}}), {"n1"}),
            "n1 GPU-n1-1,NVIDIA,8000,0:GPU-n1-0,NVIDIA,8000,0:;");
  // Nothing left for anyone else.
  EXPECT_EQ(place(env, pod_json("ns", "q", "u2", {kHalf}), {"n1"}),
            "fail: n1=2/2 CardInsufficientMemory;");
}

TEST(Topology, TwoCardsTakeTheBestConnectedPair) {
  // Test_Nvidia_GPU_Topology: pair scores from hami.io/node-nvidia-score.
  const std::string scores =
      R"([{"uuid":"GPU-t-0","score":{"GPU-t-1":100,"GPU-t-2":10,"GPU-t-3":10}},)"
      R"({"uuid":"GPU-t-1","score":{"GPU-t-0":100,"GPU-t-2":50,"GPU-t-3":50}},)"
      R"({"uuid":"GPU-t-2","score":{"GPU-t-0":10,"GPU-t-1":50,"GPU-t-3":600}},)"
      R"({"uuid":"GPU-t-3","score":{"GPU-t-0":10,"GPU-t-1":50,"GPU-t-2":600}}])";
  const std::string yaml =
      "kind: List\nitems:\n" +
      nvidia_node("t", 4, 8000, "NVIDIA", "      hami.io/node-nvidia-score: '" + scores + "'\n");
  SchedulingEnv env(yaml, filter_mode("topology-aware"));
  // The idle devices tie: HAMi's list is 0, 1 (NUMA 0), 2, 3 and Fit
  // collects candidates from the end, so the best pair comes out in that
  // order, 3 then 2 (this asserted 2 then 3 before ties followed HAMi).
  EXPECT_EQ(
      place(env,
            pod_json("ns", "two", "u2", {{{"nvidia.com/gpu", "2"}, {"nvidia.com/gpumem", "1000"}}}),
            {"t"}),
      "t GPU-t-3,NVIDIA,1000,0:GPU-t-2,NVIDIA,1000,0:;");
  // One card: the least connected one, keeping good pairs free.
  EXPECT_EQ(
      place(env,
            pod_json("ns", "one", "u1", {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "1000"}}}),
            {"t"}),
      "t GPU-t-0,NVIDIA,1000,0:;");
}

// Test_Nvidia_GPU_Topology with HAMi's six devices (a, b on NUMA 0; c-f on
// NUMA 1; one task, 2048 MiB and 1 core used on each), through the
// ordering: the tied devices are tried f, e, d, c, b, a, and the best
// combination keeps that order.
TEST(Topology, HamiGpuTopologyCases) {
  const auto device = [](const char* id, int numa) {
    return std::string(R"({"id":")") + id + R"(","count":4,"devmem":8192,"devcore":100,)" +
           R"("type":"NVIDIA","numa":)" + std::to_string(numa) + R"(,"health":true})";
  };
  const std::string reg = "[" + device("a", 0) + "," + device("b", 0) + "," + device("c", 1) + "," +
                          device("d", 1) + "," + device("e", 1) + "," + device("f", 1) + "]";
  const auto yaml = [&](const std::string& scores) {
    return "kind: List\nitems:\n- kind: Node\n  metadata:\n    name: node-1\n    annotations:\n"
           "      hami.io/node-nvidia-register: '" +
           reg + "'\n      hami.io/node-nvidia-score: '" + scores +
           "'\n  status: {allocatable: {nvidia.com/gpu: \"24\"}}\n"
           "- kind: Pod\n  metadata: {name: used, namespace: ns, uid: uu, annotations: "
           "{hami.io/vgpu-node: node-1, hami.io/vgpu-devices-allocated: "
           "\"a,NVIDIA,2048,1:b,NVIDIA,2048,1:c,NVIDIA,2048,1:d,NVIDIA,2048,1:e,NVIDIA,2048,1:"
           "f,NVIDIA,2048,1:;\"}}\n  spec: {containers: [{name: c}]}\n";
  };
  const auto scores = [](const std::vector<std::pair<const char*, std::string>>& rows) {
    std::string out = "[";
    for (const auto& [id, row] : rows) {
      out += std::string(out.size() > 1 ? "," : "") + R"({"uuid":")" + id + R"(","score":{)" + row +
             "}}";
    }
    return out + "]";
  };
  const Limits request = {
      {"nvidia.com/gpu", "3"}, {"nvidia.com/gpumem", "1024"}, {"nvidia.com/gpucores", "20"}};
  {
    SchedulingEnv env(yaml(scores({{"a", R"("b":1,"c":1,"d":1,"e":1,"f":100)"},
                                   {"b", R"("a":1,"c":1,"d":1,"e":1,"f":1)"},
                                   {"c", R"("a":1,"b":1,"d":1,"e":1,"f":100)"},
                                   {"d", R"("a":1,"b":1,"c":1,"e":1,"f":1)"},
                                   {"e", R"("a":1,"b":1,"c":1,"d":1,"f":1)"},
                                   {"f", R"("a":100,"b":1,"c":100,"d":1,"e":1)"}})),
                      filter_mode("topology-aware"));
    EXPECT_EQ(place(env, pod_json("ns", "three", "u3", {request}), {"node-1"}),
              "node-1 f,NVIDIA,1024,20:c,NVIDIA,1024,20:a,NVIDIA,1024,20:;");
  }
  {
    SchedulingEnv env(yaml(scores({{"a", R"("b":100,"c":100,"d":100,"e":100,"f":1)"},
                                   {"b", R"("a":100,"c":100,"d":100,"e":100,"f":1)"},
                                   {"c", R"("a":100,"b":100,"d":100,"e":100,"f":1)"},
                                   {"d", R"("a":100,"b":100,"c":100,"e":100,"f":1)"},
                                   {"e", R"("a":100,"b":100,"c":100,"d":100,"f":1)"},
                                   {"f", R"("a":1,"b":1,"c":1,"d":1,"e":1)"}})),
                      filter_mode("topology-aware"));
    Limits one = request;
    one[0].second = "1";
    EXPECT_EQ(place(env, pod_json("ns", "one", "u1", {one}), {"node-1"}),
              "node-1 f,NVIDIA,1024,20:;");
  }
}

TEST(Mutex, OnlyIdleDevicesAreUsed) {
  const std::string yaml = two_gpu_node("n1") + R"(- kind: Pod
  metadata: {name: busy, namespace: ns, uid: ub, annotations: {hami.io/vgpu-node: n1, hami.io/vgpu-devices-allocated: "GPU-n1-1,NVIDIA,100,0:;"}}
  spec: {containers: [{name: c}]}
)";
  SchedulingEnv env(yaml, filter_mode("mutex"));
  EXPECT_EQ(
      place(env,
            pod_json("ns", "p", "u", {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "100"}}}),
            {"n1"}),
      "n1 GPU-n1-0,NVIDIA,100,0:;");
  EXPECT_EQ(
      place(env,
            pod_json("ns", "q", "u2", {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "100"}}}),
            {"n1"}),
      "fail: n1=2/2 ExclusiveDeviceAllocateConflict;");
}

TEST(NumaBind, AllDevicesOfAContainerShareANumaNode) {
  // Four GPUs: 0,1 on NUMA 0 and 2,3 on NUMA 1; GPU 1 is busy, so only NUMA 1
  // can host two devices. HAMi's binpack list is 2, 3, 0, 1: Fit takes 0,
  // drops it when the NUMA changes, then takes 3 and 2, in that order (this
  // asserted 2 then 3 before ties followed HAMi).
  const std::string yaml =
      "kind: List\nitems:\n" + nvidia_node("n", 4, 8000, "NVIDIA") + R"(- kind: Pod
  metadata: {name: busy, namespace: ns, uid: ub, annotations: {hami.io/vgpu-node: n, hami.io/vgpu-devices-allocated: "GPU-n-1,NVIDIA,8000,100:;"}}
  spec: {containers: [{name: c}]}
)";
  SchedulingEnv env(yaml, filter_mode("binpack"));
  EXPECT_EQ(
      place(env,
            pod_json("ns", "p", "u", {{{"nvidia.com/gpu", "2"}, {"nvidia.com/gpumem", "1000"}}}, {},
                     R"({"nvidia.com/numa-bind":"true"})"),
            {"n"}),
      "n GPU-n-3,NVIDIA,1000,0:GPU-n-2,NVIDIA,1000,0:;");
}

TEST(Quota, NamespaceLimitsBoundMemoryAcrossPods) {
  // Test_ResourceQuota: limit 2000 MiB in namespace q, 1000 already used.
  const std::string yaml =
      "kind: List\nitems:\n" + nvidia_node("n1", 2, 8000, "NVIDIA") + R"(- kind: ResourceQuota
  metadata: {name: gpu, namespace: q}
  spec: {hard: {limits.nvidia.com/gpumem: "2000", limits.nvidia.com/gpucores: "100"}}
- kind: Pod
  metadata: {name: used, namespace: q, uid: uu, annotations: {hami.io/vgpu-node: n1, hami.io/vgpu-devices-allocated: "GPU-n1-0,NVIDIA,1000,10:;"}}
  spec: {containers: [{name: c}]}
)";
  SchedulingEnv env(yaml, filter_mode());
  const auto gpu = [](const char* count, const char* mem) {
    return Limits{{"nvidia.com/gpu", count}, {"nvidia.com/gpumem", mem}};
  };
  EXPECT_EQ(place(env, pod_json("q", "over", "u1", {gpu("1", "1500")}), {"n1"}),
            "fail: n1=2/2 ResourceQuotaNotFit;");
  EXPECT_EQ(place(env, pod_json("q", "two", "u2", {gpu("2", "600")}), {"n1"}),
            "fail: n1=1/2 AllocatedCardsInsufficientRequest, 1/2 ResourceQuotaNotFit;");
  EXPECT_EQ(place(env, pod_json("q", "fits", "u3", {gpu("1", "900")}), {"n1"}),
            "n1 GPU-n1-1,NVIDIA,900,0:;");
  // Another namespace is not limited.
  EXPECT_EQ(place(env, pod_json("free", "big", "u4", {gpu("1", "7000")}), {"n1"}),
            "n1 GPU-n1-1,NVIDIA,7000,0:;");
}

TEST(Amd, Mi300xTakesMemoryAndComputeUnits) {
  const std::string yaml = "kind: List\nitems:\n" + mi300x_node("mi");
  SchedulingEnv env(yaml, filter_mode());
  EXPECT_EQ(
      place(env,
            pod_json(
                "ns", "p", "u",
                {{{"amd.com/gpu", "1"}, {"amd.com/gpumem", "16384"}, {"amd.com/gpucores", "25"}}}),
            {"mi"}, "hami.io/amd-devices-allocated"),
      "mi amd-0,AMD Instinct MI300X VF,16384,76:;");
  // An NVIDIA request finds no NVIDIA device there.
  EXPECT_EQ(place(env, pod_json("ns", "nv", "u2", {{{"nvidia.com/gpu", "1"}}}), {"mi"}),
            "fail: mi=NodeInsufficientDevice;");
}

TEST(MultiVendor, OnePodAsksTwoVendors) {
  // Test_fitInDevices_MultiTypePartition: each vendor's annotation carries
  // only its own devices, one segment per container. (AMD counts a node
  // healthy only while it reports amd.com/gpu capacity.)
  const std::string yaml = R"(
kind: List
items:
- kind: Node
  metadata:
    name: mix
    annotations:
      hami.io/node-nvidia-register: '[{"id":"GPU-mix-0","count":10,"devmem":8000,"devcore":100,"type":"NVIDIA","health":true}]'
      hami.io/node-amd-register: '[{"id":"amd-0","count":4,"devmem":65536,"devcore":100,"type":"AMD MI210","health":true}]'
  status: {allocatable: {nvidia.com/gpu: "10", amd.com/gpu: "4"}, capacity: {nvidia.com/gpu: "10", amd.com/gpu: "4"}}
)";
  SchedulingEnv env(yaml, filter_mode());
  const std::string json = pod_json("ns", "p", "u",
                                    {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "1000"}},
                                     {{"amd.com/gpu", "1"}, {"amd.com/gpumem", "2048"}}});
  EXPECT_EQ(place(env, json, {"mix"}), "mix GPU-mix-0,NVIDIA,1000,0:;;");
  EXPECT_EQ(env.annotation("ns", "p", "hami.io/amd-devices-allocated"),
            ";amd-0,AMD MI210,2048,100:;");
}

}  // namespace
