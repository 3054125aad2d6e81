// The usage ledger rebuilt from pods' allocation annotations: HAMi's
// Test_getNodesUsage*, Test_onUpdatePod_InitContainerShrink,
// Test_SchedulerTerminatingPodRetainsCache, Test_onAddPod_BadDeviceAnnotation
// and pkg/device/initContainer_test.go.
#include <gtest/gtest.h>

#include "scheduling/pod_charge.hpp"
#include "scheduling_env.hpp"

namespace {

using namespace hami;
using namespace hami::testing;
using scheduling::DeviceCharge;
using scheduling::VendorAllocation;

host::AllocDevice dev(std::string id, int64_t mem, int32_t cores) {
  return {std::move(id), "NVIDIA", mem, cores, 0, ""};
}

std::string describe(const std::vector<DeviceCharge>& charges) {
  std::string out;
  for (const auto& c : charges) {
    out += c.device_id + ":" + std::to_string(c.slots) + "/" + std::to_string(c.memory_mib) + "/" +
           std::to_string(c.cores) + " ";
  }
  return out;
}

TEST(Collapse, InitPeakAgainstAppSum) {
  // init 20000/10 and app 10000/5 on the same GPU → 20000/10, one slot.
  const std::vector<VendorAllocation> a = {{0, {{dev("g", 20000, 10)}, {dev("g", 10000, 5)}}}};
  EXPECT_EQ(describe(scheduling::collapse(a, 1, false)), "g:1/20000/10 ");
  // After the init containers succeeded: app only.
  EXPECT_EQ(describe(scheduling::collapse(a, 1, true)), "g:1/10000/5 ");
}

TEST(Collapse, InitContainersTakeTheMaxAppContainersTheSum) {
  const std::vector<VendorAllocation> a = {
      {0, {{dev("g", 800, 10)}, {dev("g", 500, 30)}, {dev("g", 300, 5)}, {dev("g", 400, 5)}}}};
  // init max 800/30 vs app sum 700/10 → 800/30; slots = 2 app containers.
  EXPECT_EQ(describe(scheduling::collapse(a, 2, false)), "g:2/800/30 ");
  EXPECT_EQ(describe(scheduling::collapse(a, 2, true)), "g:2/700/10 ");
}

TEST(Collapse, DevicesOnlyInitContainersUsedDropAfterShrink) {
  const std::vector<VendorAllocation> a = {
      {0, {{dev("init-gpu", 5000, 0)}, {dev("app-gpu", 1000, 20)}}}};
  EXPECT_EQ(describe(scheduling::collapse(a, 1, false)), "init-gpu:1/5000/0 app-gpu:1/1000/20 ");
  EXPECT_EQ(describe(scheduling::collapse(a, 1, true)), "app-gpu:1/1000/20 ");
}

TEST(Collapse, EveryAppEntryOfADeviceIsASlot) {
  // Two MIG instances of one GPU in one app container: two slots, as
  // HAMi's CollapseInitContainerUsage counts each occurrence. In an init
  // container the device is one slot and its entries add up (HAMi keeps the
  // largest entry only, which undercounts the container's own use).
  const std::vector<VendorAllocation> a = {
      {0, {{dev("g", 4864, 14), dev("g", 4864, 14)}, {dev("g", 9856, 28), dev("g", 9856, 28)}}}};
  EXPECT_EQ(describe(scheduling::collapse(a, 0, false)), "g:4/29440/84 ");
  EXPECT_EQ(describe(scheduling::collapse(a, 1, false)), "g:2/19712/56 ");
  const std::vector<VendorAllocation> init_only = {
      {0, {{dev("g", 4864, 14), dev("g", 4864, 14)}, {}}}};
  EXPECT_EQ(describe(scheduling::collapse(init_only, 1, false)), "g:1/9728/28 ");
}

TEST(Collapse, MultipleDevicesAndVendors) {
  const std::vector<VendorAllocation> a = {
      {0, {{dev("a", 100, 1), dev("b", 100, 1)}, {dev("a", 50, 2)}}},
      {1, {{}, {dev("amd-0", 16384, 76)}}}};
  const auto charges = scheduling::collapse(a, 0, false);
  EXPECT_EQ(describe(charges), "a:2/150/3 b:1/100/1 amd-0:1/16384/76 ");
  EXPECT_EQ(charges[2].vendor, 1u);
}

// A node with two GPUs and pods whose annotations the feed turns into usage.
constexpr const char* kNode = R"(
kind: List
items:
- kind: Node
  metadata:
    name: n1
    annotations:
      hami.io/node-nvidia-register: '[{"id":"GPU-0","count":10,"devmem":40000,"devcore":100,"type":"NVIDIA A100","health":true},{"id":"GPU-1","index":1,"count":10,"devmem":40000,"devcore":100,"type":"NVIDIA A100","health":true}]'
  status: {allocatable: {nvidia.com/gpu: "20"}}
)";

struct Usage : ::testing::Test {
  SchedulingEnv env{kNode};

  void put(const std::string& name, const std::vector<Limits>& app, const std::vector<Limits>& init,
           const std::string& annotations, const std::string& status = R"({"phase":"Running"})") {
    std::string json = pod_json("ml", name, "uid-" + name, app, init, annotations);
    const std::string pending = R"("status":{"phase":"Pending"})";
    json.replace(json.find(pending), pending.size(), "\"status\":" + status);
    rapidjson::Document doc;
    doc.Parse(json.c_str());
    ASSERT_FALSE(doc.HasParseError()) << json;
    env.cluster->upsert(doc);
  }
  scheduling::DeviceUse use(size_t device) const {
    const auto snapshot = env.scheduler->ledger().read();
    return snapshot->node("n1")->use[0][device];
  }
  scheduling::VendorTotals ns_used() const {
    const auto snapshot = env.scheduler->ledger().read();
    const auto* used = snapshot->namespace_used("ml");
    return used != nullptr ? (*used)[0] : scheduling::VendorTotals{};
  }
};

const Limits kGpu = {{"nvidia.com/gpu", "1"}};

TEST_F(Usage, PodAllocationsAddUpOnTheirDevices) {
  put("a", {kGpu}, {},
      R"({"hami.io/vgpu-node":"n1","hami.io/vgpu-devices-allocated":"GPU-0,NVIDIA,1000,10:;"})");
  put("b", {kGpu}, {},
      R"({"hami.io/vgpu-node":"n1","hami.io/vgpu-devices-allocated":"GPU-0,NVIDIA,2000,20:;"})");
  put("c", {kGpu}, {},
      R"({"hami.io/vgpu-node":"n1","hami.io/vgpu-devices-allocated":"GPU-1,NVIDIA,500,5:;"})");
  EXPECT_EQ(use(0).used, 2);
  EXPECT_EQ(use(0).memory_mib, 3000);
  EXPECT_EQ(use(0).cores, 30);
  EXPECT_EQ(use(1).memory_mib, 500);
  EXPECT_EQ(ns_used().memory_mib, 3500);
  EXPECT_EQ(ns_used().cores, 35);
}

TEST_F(Usage, StaleDeviceIdsAreIgnoredValidOnesCount) {
  put("mixed", {{{"nvidia.com/gpu", "2"}}}, {},
      R"({"hami.io/vgpu-node":"n1","hami.io/vgpu-devices-allocated":"GPU-gone,NVIDIA,7000,70:GPU-1,NVIDIA,1000,10:;"})");
  EXPECT_EQ(use(0).used, 0);
  EXPECT_EQ(use(1).memory_mib, 1000);
  EXPECT_EQ(use(1).used, 1);
}

TEST_F(Usage, PodsWithoutAssignedNodeOrWithBadAnnotationsDoNotCount) {
  put("unassigned", {kGpu}, {}, R"({"hami.io/vgpu-devices-allocated":"GPU-0,NVIDIA,1000,10:;"})");
  put("bad", {kGpu}, {},
      R"({"hami.io/vgpu-node":"n1","hami.io/vgpu-devices-allocated":"GPU-0,NVIDIA:;"})");
  EXPECT_EQ(use(0).used, 0);
  EXPECT_EQ(env.scheduler->ledger().read()->pod_count(), 0u);
}

TEST_F(Usage, InitContainersCountAsPeakThenShrink) {
  // Test_onUpdatePod_InitContainerShrink: init 20000/10 + app 10000/5.
  const std::string ann =
      R"({"hami.io/vgpu-node":"n1","hami.io/vgpu-devices-allocated":"GPU-0,NVIDIA,20000,10:;GPU-0,NVIDIA,10000,5:;"})";
  put("p", {kGpu}, {kGpu}, ann);
  EXPECT_EQ(use(0).used, 1);
  EXPECT_EQ(use(0).memory_mib, 20000);
  EXPECT_EQ(use(0).cores, 10);
  EXPECT_EQ(ns_used().memory_mib, 20000);
  // The init container finished with exit code 0.
  put("p", {kGpu}, {kGpu}, ann,
      R"({"phase":"Running","initContainerStatuses":[{"name":"init0","state":{"terminated":{"exitCode":0}}}]})");
  EXPECT_EQ(use(0).memory_mib, 10000);
  EXPECT_EQ(use(0).cores, 5);
  EXPECT_EQ(ns_used().memory_mib, 10000);
  // A later update without the statuses (a resync) does not re-inflate.
  put("p", {kGpu}, {kGpu}, ann);
  EXPECT_EQ(use(0).memory_mib, 10000);
}

TEST_F(Usage, FailedInitContainerKeepsThePeak) {
  put("p", {kGpu}, {kGpu},
      R"({"hami.io/vgpu-node":"n1","hami.io/vgpu-devices-allocated":"GPU-0,NVIDIA,20000,10:;GPU-0,NVIDIA,10000,5:;"})",
      R"({"phase":"Pending","initContainerStatuses":[{"name":"init0","state":{"terminated":{"exitCode":1}}}]})");
  EXPECT_EQ(use(0).memory_mib, 20000);
}

TEST_F(Usage, TwoAppContainersOnOneDeviceUseTwoSlots) {
  put("p", {kGpu, kGpu}, {},
      R"({"hami.io/vgpu-node":"n1","hami.io/vgpu-devices-allocated":"GPU-1,NVIDIA,1000,10:;GPU-1,NVIDIA,2000,10:;"})");
  EXPECT_EQ(use(1).used, 2);
  EXPECT_EQ(use(1).memory_mib, 3000);
}

TEST_F(Usage, TerminatingPodsKeepUsageTerminalAndDeletedPodsRelease) {
  const std::string ann =
      R"({"hami.io/vgpu-node":"n1","hami.io/vgpu-devices-allocated":"GPU-0,NVIDIA,1000,10:;"})";
  put("p", {kGpu}, {}, ann);
  std::string json = pod_json("ml", "p", "uid-p", {kGpu}, {}, ann);
  json.replace(json.find(R"("namespace")"), 0, R"("deletionTimestamp":"2025-06-15T15:00:00Z",)");
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  env.cluster->upsert(doc);
  EXPECT_TRUE(env.cluster->pod("ml", "p")->terminating);
  EXPECT_EQ(use(0).memory_mib, 1000);
  put("p", {kGpu}, {}, ann, R"({"phase":"Succeeded"})");
  EXPECT_EQ(use(0).memory_mib, 0);
  EXPECT_EQ(ns_used().memory_mib, 0);
  put("q", {kGpu}, {}, ann);
  EXPECT_EQ(use(0).memory_mib, 1000);
  env.cluster->delete_pod("ml", "q");
  EXPECT_EQ(use(0).memory_mib, 0);
}

// A StatefulSet's pod holding both GPUs is deleted and re-created under
// its name; the cluster only shows the new pod (pending, no allocation).
// The old uid's charge goes and the GPUs are free for the new pod.
TEST_F(Usage, PodReCreatedUnderItsNameReleasesTheOldUid) {
  const Limits whole = {{"nvidia.com/gpu", "2"}, {"nvidia.com/gpumem", "40000"}};
  std::string bound = pod_json(
      "ml", "infer-0", "uid-old", {whole}, {},
      R"({"hami.io/vgpu-node":"n1","hami.io/vgpu-devices-allocated":"GPU-0,NVIDIA,40000,100:GPU-1,NVIDIA,40000,100:;"})");
  bound.replace(bound.find(R"("schedulerName")"), 0, R"("nodeName":"n1",)");
  bound.replace(bound.find(R"("phase":"Pending")"), 17, R"("phase":"Running")");
  rapidjson::Document doc;
  doc.Parse(bound.c_str());
  ASSERT_FALSE(doc.HasParseError()) << bound;
  env.cluster->upsert(doc);
  ASSERT_NE(env.scheduler->ledger().read()->pod("uid-old"), nullptr);
  EXPECT_EQ(use(0).memory_mib, 40000);
  EXPECT_EQ(use(1).memory_mib, 40000);

  const std::string recreated = pod_json("ml", "infer-0", "uid-new", {whole});
  doc.Parse(recreated.c_str());
  env.cluster->upsert(doc);
  const auto snapshot = env.scheduler->ledger().read();
  EXPECT_EQ(snapshot->pod("uid-old"), nullptr);
  EXPECT_EQ(snapshot->pod("uid-new"), nullptr);
  EXPECT_EQ(snapshot->pod_count(), 0u);
  EXPECT_EQ(use(0).used, 0);
  EXPECT_EQ(use(0).memory_mib, 0);
  EXPECT_EQ(use(1).memory_mib, 0);
  EXPECT_EQ(ns_used().memory_mib, 0);
  const std::vector<std::string> names = {"n1"};
  const auto out = env.scheduler->filter(pod_from_json(recreated), names);
  EXPECT_EQ(out.error, "");
  EXPECT_EQ(out.fit, (std::vector<size_t>{0})) << ::testing::PrintToString(out.failed);
}

TEST_F(Usage, NodeReRegistrationRecomputesUsage) {
  put("p", {kGpu}, {},
      R"({"hami.io/vgpu-node":"n1","hami.io/vgpu-devices-allocated":"GPU-1,NVIDIA,1000,10:;"})");
  // The node now registers GPU-1 first: usage follows the id, not the slot.
  env.cluster->patch_node_annotations(
      "n1",
      {{"hami.io/node-nvidia-register",
        R"([{"id":"GPU-1","count":10,"devmem":40000,"devcore":100,"type":"NVIDIA A100","health":true}])"}},
      std::nullopt);
  EXPECT_EQ(use(0).memory_mib, 1000);
  // Removing the node keeps the charge; adding it back restores the usage.
  env.cluster->delete_node("n1");
  EXPECT_EQ(env.scheduler->ledger().read()->pod_count(), 1u);
  rapidjson::Document node;
  node.Parse(
      R"({"kind":"Node","metadata":{"name":"n1","annotations":{"hami.io/node-nvidia-register":"[{\"id\":\"GPU-1\",\"count\":10,\"devmem\":40000,\"devcore\":100,\"type\":\"NVIDIA A100\",\"health\":true}]"}}})");
  env.cluster->upsert(node);
  EXPECT_EQ(use(0).memory_mib, 1000);
}

// A reservation in flight counts with the allocation the pod still holds:
// on one node each device takes the larger of the two, and a node that
// registers again counts both the same way. Quotas see the reservation.
TEST_F(Usage, ReservationAndHeldAllocationCountTogether) {
  scheduling::UsageLedger ledger(env.registry.devices().size());
  const auto devices = env.scheduler->ledger().read()->node("n1")->devices;
  ledger.write()->set_node_devices(devices);
  scheduling::PodCharge charge;
  charge.uid = "uid-p";
  charge.namespace_ = "ml";
  charge.name = "p";
  charge.node = "n1";
  charge.devices = {{0, "GPU-0", 1, 1000, 10, {}}};
  charge.reservation = true;
  charge.held_node = "n1";
  charge.held_devices = {{0, "GPU-0", 1, 3000, 5, {}}, {0, "GPU-1", 1, 500, 5, {}}};
  ledger.write()->put_pod(charge);
  const auto expect_use = [&](const std::string& what) {
    const auto snapshot = ledger.read();
    const auto& use = snapshot->node("n1")->use[0];
    EXPECT_EQ(std::to_string(use[0].used) + "/" + std::to_string(use[0].memory_mib) + "/" +
                  std::to_string(use[0].cores) + " " + std::to_string(use[1].used) + "/" +
                  std::to_string(use[1].memory_mib) + "/" + std::to_string(use[1].cores),
              what);
  };
  expect_use("1/3000/10 1/500/5");
  EXPECT_EQ((*ledger.read()->namespace_used("ml"))[0].memory_mib, 1000);
  ledger.write()->set_node_devices(devices);
  expect_use("1/3000/10 1/500/5");
  // Held on another node: each node counts its own part.
  charge.held_node = "n2";
  ledger.write()->put_pod(charge);
  expect_use("1/1000/10 0/0/0");
  EXPECT_EQ(ledger.read()->node("n2")->pods.size(), 1u);
  ledger.write()->remove_pod("uid-p");
  expect_use("0/0/0 0/0/0");
  EXPECT_TRUE(ledger.read()->node("n2")->pods.empty());
  EXPECT_TRUE(ledger.read()->node("n1")->pods.empty());
}

TEST_F(Usage, LockAnnotationChangesDoNotReDecodeTheNode) {
  const auto before = env.scheduler->ledger().read()->node("n1")->devices;
  env.cluster->patch_node_annotations("n1", {{"hami.io/mutex.lock", "2025-06-15T15:06:00Z,ml,x"}},
                                      std::nullopt);
  EXPECT_EQ(env.scheduler->ledger().read()->node("n1")->devices, before);
}

TEST_F(Usage, MalformedRegistrationKeepsTheCachedDevices) {
  env.cluster->patch_node_annotations("n1", {{"hami.io/node-nvidia-register", "not json"}},
                                      std::nullopt);
  const auto snapshot = env.scheduler->ledger().read();
  const auto& vendor = snapshot->node("n1")->devices->vendors()[0];
  // The devices are the node's own copy: the decode they came from is gone.
  ASSERT_EQ(vendor.size(), 2u);
  EXPECT_EQ(vendor.id(0), "GPU-0");
  EXPECT_EQ(vendor.id(1), "GPU-1");
  EXPECT_EQ(vendor.type(1), "NVIDIA A100");
  EXPECT_EQ(vendor.abi[1].memory_mib, 40000);
  EXPECT_EQ(vendor.total_memory_mib, 80000);
  EXPECT_EQ(vendor.find("GPU-1"), 1u);
  EXPECT_NE(vendor.error, "");
}

}  // namespace
