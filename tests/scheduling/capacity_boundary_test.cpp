// Every capacity check at its boundary, end to end: pods with real
// resource limits filtered by the scheduler (bind mode, no side effects)
// on a file-backed cluster whose usage comes from running pods'
// allocation annotations. Exactly what is free fits; one unit more fails
// with HAMi's reason for the node (§5.3, §5.5, §5.6, §7.3).
#include <gtest/gtest.h>

#include "scheduling_env.hpp"

namespace {

using namespace hami;
using namespace hami::testing;

// A node (YAML list item) registering one NVIDIA card "<node>-gpu" of
// `memory` MiB, 100 cores and split count `count`.
std::string nvidia_card_node(const std::string& node, int64_t memory, int count = 10) {
  return "- kind: Node\n  metadata:\n    name: " + node +
         "\n    annotations:\n      hami.io/node-nvidia-register: '[{\"id\":\"" + node +
         "-gpu\",\"count\":" + std::to_string(count) + ",\"devmem\":" + std::to_string(memory) +
         ",\"devcore\":100,\"type\":\"NVIDIA\",\"health\":true}]'\n"
         "  status: {allocatable: {nvidia.com/gpu: \"10\"}}\n";
}

// A running pod (YAML list item) charged with `allocated`, the value of the
// vendor's `*-devices-allocated` annotation.
std::string running(const std::string& ns, const std::string& name, const std::string& node,
                    const std::string& allocated,
                    const std::string& key = "hami.io/vgpu-devices-allocated") {
  return "- kind: Pod\n  metadata:\n    name: " + name + "\n    namespace: " + ns +
         "\n    uid: uid-" + ns + "-" + name +
         "\n    annotations:\n      hami.io/vgpu-node: " + node + "\n      " + key + ": \"" +
         allocated + "\"\n  spec:\n    nodeName: " + node +
         "\n    containers: [{name: c}]\n  status: {phase: Running}\n";
}

std::string amd_running(const std::string& name, const std::string& node, int64_t memory, int cus) {
  return running(
      "ns", name, node,
      "amd-0,AMD Instinct MI300X VF," + std::to_string(memory) + "," + std::to_string(cus) + ":;",
      "hami.io/amd-devices-allocated");
}

std::string quota(const std::string& ns, const std::string& hard) {
  return "- kind: ResourceQuota\n  metadata: {name: gpu, namespace: " + ns + "}\n  spec: {hard: {" +
         hard + "}}\n";
}

std::string list(const std::vector<std::string>& items) {
  std::string out = "kind: List\nitems:\n";
  for (const auto& i : items)
    out += i;
  return out;
}

Limits nvidia(const std::string& count, const std::string& mem, const std::string& cores = "") {
  Limits l = {{"nvidia.com/gpu", count}};
  if (!mem.empty())
    l.emplace_back("nvidia.com/gpumem", mem);
  if (!cores.empty())
    l.emplace_back("nvidia.com/gpucores", cores);
  return l;
}

Limits nvidia_percent(const std::string& percent) {
  return {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem-percentage", percent}};
}

Limits amd(const std::string& count, const std::string& mem, const std::string& cores) {
  return {{"amd.com/gpu", count}, {"amd.com/gpumem", mem}, {"amd.com/gpucores", cores}};
}

// The filter's verdict on `node` for a pod of namespace `ns` asking `limits`
// in one container: "fits", the failure reason, or "unresolvable: <reason>".
std::string verdict(SchedulingEnv& env, const Limits& limits, const std::string& node = "n",
                    const std::string& ns = "ns") {
  const auto out = env.scheduler->filter(
      pod_from_json(pod_json(ns, "probe", "uid-probe", {limits})), std::vector<std::string>{node});
  if (!out.error.empty())
    return "error: " + out.error;
  if (!out.fit.empty())
    return "fits";
  if (const auto it = out.failed.find(node); it != out.failed.end())
    return it->second;
  if (const auto it = out.unresolvable.find(node); it != out.unresolvable.end())
    return "unresolvable: " + it->second;
  return "no verdict";
}

TEST(CapacityBoundary, NvidiaMemoryExactlyFreeFitsOneMibMoreDoesNot) {
  SchedulingEnv env(
      list({nvidia_card_node("n", 8000), running("ns", "a", "n", "n-gpu,NVIDIA,3000,0:;")}));
  EXPECT_EQ(verdict(env, nvidia("1", "5000")), "fits");
  EXPECT_EQ(verdict(env, nvidia("1", "5001")), "1/1 CardInsufficientMemory");
}

TEST(CapacityBoundary, NvidiaMemoryPercentageIsTheCardsShare) {
  // 4000 of 8000 MiB free: 50 % is 4000 MiB, 51 % is 4080.
  SchedulingEnv env(
      list({nvidia_card_node("n", 8000), running("ns", "a", "n", "n-gpu,NVIDIA,4000,0:;")}));
  EXPECT_EQ(verdict(env, nvidia_percent("50")), "fits");
  EXPECT_EQ(verdict(env, nvidia_percent("51")), "1/1 CardInsufficientMemory");
}

TEST(CapacityBoundary, NvidiaCoresExactlyFreeFitOneMoreDoNot) {
  SchedulingEnv env(
      list({nvidia_card_node("n", 8000), running("ns", "a", "n", "n-gpu,NVIDIA,100,30:;")}));
  EXPECT_EQ(verdict(env, nvidia("1", "100", "70")), "fits");
  EXPECT_EQ(verdict(env, nvidia("1", "100", "71")), "1/1 CardInsufficientCore");
}

TEST(CapacityBoundary, NvidiaSplitCountBoundsTheTasksOnACard) {
  // Split count 2: one task leaves a slot, two leave none.
  SchedulingEnv env(list({nvidia_card_node("one", 8000, 2), nvidia_card_node("two", 8000, 2),
                          running("ns", "a", "one", "one-gpu,NVIDIA,100,0:;"),
                          running("ns", "b", "two", "two-gpu,NVIDIA,100,0:;"),
                          running("ns", "c", "two", "two-gpu,NVIDIA,100,0:;")}));
  EXPECT_EQ(verdict(env, nvidia("1", "100"), "one"), "fits");
  EXPECT_EQ(verdict(env, nvidia("1", "100"), "two"), "1/1 CardTimeSlicingExhausted");
}

TEST(CapacityBoundary, NvidiaExclusiveCards) {
  // "shared" runs a task holding no cores; "taken" one holding all 100.
  SchedulingEnv env(list({nvidia_card_node("shared", 8000), nvidia_card_node("taken", 8000),
                          running("ns", "a", "shared", "shared-gpu,NVIDIA,100,0:;"),
                          running("ns", "b", "taken", "taken-gpu,NVIDIA,100,100:;")}));
  EXPECT_EQ(verdict(env, nvidia("1", "100", "100"), "shared"),
            "1/1 ExclusiveDeviceAllocateConflict");
  EXPECT_EQ(verdict(env, nvidia("1", "100", "99"), "shared"), "fits");
  EXPECT_EQ(verdict(env, nvidia("1", "100", "1"), "taken"), "1/1 CardInsufficientCore");
  EXPECT_EQ(verdict(env, nvidia("1", "100"), "taken"), "1/1 CardComputeUnitsExhausted");
}

TEST(CapacityBoundary, DeviceCountAgainstTheNode) {
  SchedulingEnv env(list({nvidia_node("nv", 2, 8000, "NVIDIA"), mi300x_node("mi")}));
  EXPECT_EQ(verdict(env, nvidia("2", "100"), "nv"), "fits");
  EXPECT_EQ(verdict(env, nvidia("3", "100"), "nv"), "unresolvable: NodeInsufficientDevice");
  EXPECT_EQ(verdict(env, amd("1", "1024", "10"), "mi"), "fits");
  EXPECT_EQ(verdict(env, amd("2", "1024", "10"), "mi"), "unresolvable: NodeInsufficientDevice");
}

TEST(CapacityBoundary, NvidiaQuotaOnMemoryAndCores) {
  // Namespace q: 4000 MiB and 100 cores, 1000 MiB and 30 cores used on
  // another node.
  SchedulingEnv env(list({nvidia_card_node("n", 8000), nvidia_card_node("other", 8000),
                          quota("q",
                                "limits.nvidia.com/gpumem: \"4000\", "
                                "limits.nvidia.com/gpucores: \"100\""),
                          running("q", "a", "other", "other-gpu,NVIDIA,1000,30:;")}));
  EXPECT_EQ(verdict(env, nvidia("1", "3000"), "n", "q"), "fits");
  EXPECT_EQ(verdict(env, nvidia("1", "3001"), "n", "q"), "1/1 ResourceQuotaNotFit");
  EXPECT_EQ(verdict(env, nvidia("1", "100", "70"), "n", "q"), "fits");
  EXPECT_EQ(verdict(env, nvidia("1", "100", "71"), "n", "q"), "1/1 ResourceQuotaNotFit");
  // A percentage counts as its share of the card: 37 % of 8000 is 2960
  // MiB, 38 % is 3040.
  EXPECT_EQ(verdict(env, nvidia_percent("37"), "n", "q"), "fits");
  EXPECT_EQ(verdict(env, nvidia_percent("38"), "n", "q"), "1/1 ResourceQuotaNotFit");
}

TEST(CapacityBoundary, NvidiaQuotaCountsEveryCardOfTheRequest) {
  SchedulingEnv env(
      list({nvidia_node("two", 2, 8000, "NVIDIA"), quota("q", "limits.nvidia.com/gpumem: \"4000\""),
            running("q", "a", "two", "GPU-two-0,NVIDIA,1000,0:;")}));
  EXPECT_EQ(verdict(env, nvidia("2", "1500"), "two", "q"), "fits");
  EXPECT_EQ(verdict(env, nvidia("2", "1501"), "two", "q"),
            "1/2 AllocatedCardsInsufficientRequest, 1/2 ResourceQuotaNotFit");
}

TEST(CapacityBoundary, NvidiaExplicitZeroQuotaBlocksAnyDemand) {
  SchedulingEnv env(
      list({nvidia_card_node("n", 8000), quota("nomem", "limits.nvidia.com/gpumem: \"0\""),
            quota("nocores", "limits.nvidia.com/gpucores: \"0\"")}));
  EXPECT_EQ(verdict(env, nvidia("1", "1"), "n", "nomem"), "1/1 ResourceQuotaNotFit");
  // No cores asked: a zero cores limit still holds.
  EXPECT_EQ(verdict(env, nvidia("1", "100"), "n", "nocores"), "fits");
  EXPECT_EQ(verdict(env, nvidia("1", "100", "1"), "n", "nocores"), "1/1 ResourceQuotaNotFit");
}

TEST(CapacityBoundary, NvidiaQuotaMemoryLimitScalesWithTheMemoryFactor) {
  // Factor 2: a 500 MiB request is 1000 MiB on the card, the limit of 1000
  // is 2000; the running pod already holds 1000.
  SchedulingEnv env(
      list({nvidia_card_node("n", 8000), quota("q", "limits.nvidia.com/gpumem: \"1000\""),
            running("q", "a", "n", "n-gpu,NVIDIA,1000,0:;")}),
      {}, R"({"memoryFactor":2})");
  EXPECT_EQ(verdict(env, nvidia("1", "500"), "n", "q"), "fits");
  EXPECT_EQ(verdict(env, nvidia("1", "501"), "n", "q"), "1/1 ResourceQuotaNotFit");
}

TEST(CapacityBoundary, AmdMemoryAndComputeUnitsExactlyFree) {
  // MI300X: 196608 MiB, 304 CUs; 100000 MiB and 228 CUs in use.
  SchedulingEnv env(list({mi300x_node("mi"), amd_running("a", "mi", 100000, 228)}));
  EXPECT_EQ(verdict(env, amd("1", "96608", "25"), "mi"), "fits");
  EXPECT_EQ(verdict(env, amd("1", "96609", "25"), "mi"), "1/1 CardInsufficientMemory");
  // 25 % of 304 CUs is 76, exactly what is free; 26 % is 79.
  EXPECT_EQ(verdict(env, amd("1", "1024", "26"), "mi"), "1/1 CardInsufficientCore");
}

TEST(CapacityBoundary, AmdSplitCountBoundsTheTasksOnACard) {
  // Split count 4.
  SchedulingEnv three(list({mi300x_node("mi"), amd_running("a", "mi", 1024, 10),
                            amd_running("b", "mi", 1024, 10), amd_running("c", "mi", 1024, 10)}));
  EXPECT_EQ(verdict(three, amd("1", "1024", "10"), "mi"), "fits");
  SchedulingEnv four(
      list({mi300x_node("mi"), amd_running("a", "mi", 1024, 10), amd_running("b", "mi", 1024, 10),
            amd_running("c", "mi", 1024, 10), amd_running("d", "mi", 1024, 10)}));
  EXPECT_EQ(verdict(four, amd("1", "1024", "10"), "mi"), "1/1 CardTimeSlicingExhausted");
}

TEST(CapacityBoundary, AmdWholeCardAgainstAnExistingUser) {
  // 100 % of the CUs with one CU held by another task.
  SchedulingEnv env(list({mi300x_node("mi"), amd_running("a", "mi", 1024, 1)}));
  EXPECT_EQ(verdict(env, amd("1", "1024", "100"), "mi"), "1/1 CardInsufficientCore");
  EXPECT_EQ(verdict(env, amd("1", "1024", "99"), "mi"), "fits");
}

TEST(CapacityBoundary, AmdFitChecksNoQuota) {
  // As in HAMi (§5.6): the namespace quota holds AMD pods at admission,
  // not inside AMD Fit.
  SchedulingEnv env(list({mi300x_node("mi"), quota("q", "limits.amd.com/gpumem: \"0\"")}));
  EXPECT_EQ(verdict(env, amd("1", "1024", "10"), "mi", "q"), "fits");
}

}  // namespace
