// HAMi's scheduler-level MIG tests (pkg/scheduler/mig_allocation_test.go,
// reference §5.2, §5.3, §8.3) through the scheduling core with the real
// nvidia.so: reservations restored from hami.io/vgpu-mig-allocations, the
// fail-closed rules, several MIG instances of one GPU in one container, and
// the device-count check that MIG requests are exempt from.
#include <gtest/gtest.h>

#include <string>

#include "scheduling_env.hpp"

namespace {

using namespace hami;
using namespace hami::testing;
using scheduling::AllocateAt;
using scheduling::SchedulerOptions;

constexpr std::string_view kMigAllocations = "hami.io/vgpu-mig-allocations";

// HAMi's single GPU-a: count 7, 40960 MiB, MIG mode, one profile 1g.5gb
// (5120 MiB, 14 cores) with the given placements.
std::string mig_node(std::string_view placements, std::string_view mode = "mig") {
  std::string profiles;
  if (mode == "mig") {
    profiles =
        R"(,"migProfiles":[{"name":"1g.5gb","memoryMB":5120,"core":14,"sliceCount":1,"placements":[)" +
        std::string(placements) + "]}]";
  }
  return R"(
kind: List
items:
- kind: Node
  metadata:
    name: single-gpu-node
    annotations:
      hami.io/node-nvidia-register: ')" +
         std::string(
             R"([{"id":"GPU-a","count":7,"devmem":40960,"devcore":100,"type":"NVIDIA A100-SXM4-40GB","mode":")") +
         std::string(mode) + "\",\"health\":true" + profiles + R"(}]'
  status: {allocatable: {nvidia.com/gpu: "7"}}
)";
}

// A running pod holding `allocated` on GPU-a, with `mig` as its MIG
// allocations annotation when not empty.
std::string running_pod(std::string_view allocated, std::string_view mig) {
  std::string out = R"(
- kind: Pod
  metadata:
    name: running
    namespace: default
    uid: uid-running
    annotations:
      hami.io/vgpu-node: single-gpu-node
      hami.io/vgpu-devices-allocated: ")" +
                    std::string(allocated) + "\"\n";
  if (!mig.empty())
    out += "      hami.io/vgpu-mig-allocations: '" + std::string(mig) + "'\n";
  out += R"(  spec:
    nodeName: single-gpu-node
    containers: [{name: c, resources: {limits: {nvidia.com/gpu: "1"}}}]
  status: {phase: Running}
)";
  return out;
}

constexpr std::string_view kAllSeven =
    R"({"start":0,"size":1},{"start":1,"size":1},{"start":2,"size":1},{"start":3,"size":1},{"start":4,"size":1},{"start":5,"size":1},{"start":6,"size":1})";

// twoNvidiaDeviceRequest: one container asking for 2 GPUs of 4000 MiB.
scheduling::FilterOutcome filter_two(SchedulingEnv& env, std::string_view mode = "") {
  const std::string annotations =
      mode.empty() ? "{}" : R"({"nvidia.com/vgpu-mode":")" + std::string(mode) + "\"}";
  const std::string json =
      pod_json("multi-device-test", "two-nvidia-devices", "uid-two",
               {{{"nvidia.com/gpu", "2"}, {"nvidia.com/gpumem", "4000"}}}, {}, annotations);
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  env.cluster->upsert(doc);
  const std::vector<std::string> nodes = {"single-gpu-node"};
  return env.scheduler->filter(pod_from_json(json), nodes);
}

// A one-GPU pod of 4000 MiB (a 1g.5gb instance).
scheduling::FilterOutcome filter_one(SchedulingEnv& env) {
  const std::string json = pod_json("default", "next", "uid-next",
                                    {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "4000"}}});
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  env.cluster->upsert(doc);
  const std::vector<std::string> nodes = {"single-gpu-node"};
  return env.scheduler->filter(pod_from_json(json), nodes);
}

SchedulerOptions filter_mode() {
  SchedulerOptions o;
  o.allocate_at = AllocateAt::Filter;
  return o;
}

std::string reason(const scheduling::FilterOutcome& out) {
  if (!out.failed.empty())
    return out.failed.begin()->second;
  if (!out.unresolvable.empty())
    return "unresolvable: " + out.unresolvable.begin()->second;
  return out.error.empty() ? "<fits>" : "error: " + out.error;
}

// TestGetNodesUsageRestoresMigAllocationByProfileAndPlacement: the running
// pod's reservation (placement 6, the only one) is restored, so nothing
// else fits.
TEST(HamiMigAllocation, GetNodesUsageRestoresMigAllocationByProfileAndPlacement) {
  SchedulingEnv env(
      mig_node(R"({"start":6,"size":1})") +
          running_pod(
              "GPU-a,NVIDIA,5120,14:;",
              R"([{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-a","profile":"1g.5gb","placement":{"start":6,"size":1},"migUUID":"MIG-a","gpuInstanceID":7,"computeInstanceID":0}])"),
      filter_mode());
  EXPECT_EQ(reason(filter_one(env)), "1/1 CardMigTopologyInfeasible");
}

// TestGetNodesUsageFailsClosedWithoutMigAllocation.
TEST(HamiMigAllocation, GetNodesUsageFailsClosedWithoutMigAllocation) {
  SchedulingEnv env(mig_node(kAllSeven) + running_pod("GPU-a,NVIDIA,5120,14:;", ""), filter_mode());
  EXPECT_EQ(reason(filter_one(env)), "1/1 CardNotHealth");
}

// TestGetNodesUsageRestoresUnconsumedMigReservations: two reservations for
// one device entry; both are restored and the device stays healthy.
TEST(HamiMigAllocation, GetNodesUsageRestoresUnconsumedMigReservations) {
  SchedulingEnv env(
      mig_node(R"({"start":5,"size":1},{"start":6,"size":1})") +
          running_pod(
              "GPU-a,NVIDIA,5120,14:;",
              R"([{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-a","profile":"1g.5gb","placement":{"start":6,"size":1}},{"containerIndex":0,"deviceIndex":1,"gpuUUID":"GPU-a","profile":"1g.5gb","placement":{"start":5,"size":1}}])"),
      filter_mode());
  EXPECT_EQ(reason(filter_one(env)), "1/1 CardMigTopologyInfeasible");
}

// A hami-core device carrying a MIG reservation fails closed too.
TEST(HamiMigAllocation, MigReservationOnAHamiCoreDeviceFailsClosed) {
  SchedulingEnv env(
      mig_node("", "hami-core") +
          running_pod(
              "GPU-a,NVIDIA,5120,14:;",
              R"([{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-a","profile":"1g.5gb","placement":{"start":6,"size":1}}])"),
      filter_mode());
  EXPECT_EQ(reason(filter_one(env)), "1/1 CardNotHealth");
}

// TestFitInDevicesAllowsMultipleMigPlacementsOnSingleGPU: two 1g.5gb
// instances on GPU-a, placements high start first (6, then 5), written as
// HAMi's device plugin reads them.
TEST(HamiMigAllocation, FitInDevicesAllowsMultipleMigPlacementsOnSingleGPU) {
  SchedulingEnv env(mig_node(kAllSeven), filter_mode());
  const auto out = filter_two(env, "mig");
  ASSERT_EQ(out.fit.size(), 1u) << reason(out);
  EXPECT_EQ(
      env.annotation("multi-device-test", "two-nvidia-devices", "hami.io/vgpu-devices-allocated"),
      "GPU-a,NVIDIA,5120,14:GPU-a,NVIDIA,5120,14:;");
  EXPECT_EQ(
      env.annotation("multi-device-test", "two-nvidia-devices", kMigAllocations),
      R"([{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-a","profile":"1g.5gb","placement":{"start":6,"size":1}},{"containerIndex":0,"deviceIndex":1,"gpuUUID":"GPU-a","profile":"1g.5gb","placement":{"start":5,"size":1}}])");
  // The next pod's instance goes to the next free placement.
  ASSERT_EQ(filter_one(env).fit.size(), 1u);
  EXPECT_EQ(
      env.annotation("default", "next", kMigAllocations),
      R"([{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-a","profile":"1g.5gb","placement":{"start":4,"size":1}}])");
}

// "MIG mode without Pod" / no annotation: a MIG request all the same.
TEST(HamiMigAllocation, IsMIGRequestWithoutTheModeAnnotation) {
  SchedulingEnv env(mig_node(kAllSeven), filter_mode());
  EXPECT_EQ(filter_two(env).fit.size(), 1u);
}

// "explicit HAMi-core mode": not a MIG request, so the physical count
// applies.
TEST(HamiMigAllocation, IsMIGRequestNotWithHamiCoreMode) {
  SchedulingEnv env(mig_node(kAllSeven), filter_mode());
  EXPECT_EQ(reason(filter_two(env, "hami-core")), "unresolvable: NodeInsufficientDevice");
}

// TestFitInDevicesRejectsInsufficientMigPlacementsOnSingleGPU.
TEST(HamiMigAllocation, FitInDevicesRejectsInsufficientMigPlacementsOnSingleGPU) {
  SchedulingEnv env(mig_node(R"({"start":6,"size":1})"), filter_mode());
  EXPECT_EQ(reason(filter_two(env, "mig")),
            "1/1 AllocatedCardsInsufficientRequest, 1/1 CardMigTopologyInfeasible");
}

// TestFitInDevicesRetainsPhysicalCountCheckForNonMigGPU.
TEST(HamiMigAllocation, FitInDevicesRetainsPhysicalCountCheckForNonMigGPU) {
  SchedulingEnv env(mig_node("", "hami-core"), filter_mode());
  EXPECT_EQ(reason(filter_two(env, "hami-core")), "unresolvable: NodeInsufficientDevice");
}

// allocateAt: bind — the MIG annotation is written in the bind's patch.
TEST(HamiMigAllocation, BindModeWritesTheMigAllocationsWithTheDevices) {
  SchedulingEnv env(mig_node(kAllSeven));
  const std::string json =
      pod_json("default", "p", "uid-p", {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "4000"}}});
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  env.cluster->upsert(doc);
  ASSERT_EQ(env.scheduler->bind("default", "p", "uid-p", "single-gpu-node"), "");
  EXPECT_EQ(env.annotation("default", "p", "hami.io/vgpu-devices-allocated"),
            "GPU-a,NVIDIA,5120,14:;");
  EXPECT_EQ(
      env.annotation("default", "p", kMigAllocations),
      R"([{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-a","profile":"1g.5gb","placement":{"start":6,"size":1}}])");
}

}  // namespace
