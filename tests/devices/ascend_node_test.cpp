// ascend.so through its ABI: node registration, health and the allocation
// annotations. HAMi reference §1.3, §1.6 and the cases of
// pkg/device/ascend/device_test.go (Test_GetNodeDevices, Test_CheckHealth,
// Test_PatchAnnotations*) with HAMi's expected values and bytes.
#include <gtest/gtest.h>

#include <span>
#include <string>
#include <vector>

#include "device_under_test.hpp"
#include "k8s_views.hpp"

namespace hami::testing {
namespace {

constexpr const char* kRegister910A = "hami.io/node-register-Ascend910A";
constexpr const char* kHandshake910A = "hami.io/node-handshake-Ascend910A";
constexpr const char* kRegister910B3 = "hami.io/node-register-Ascend910B3";
// Reference §1.3's example, as the Ascend device plugin writes it.
constexpr const char* k910B3Registration =
    R"([{"id":"NPU-0","count":4,"devmem":65536,"devcore":20,"type":"Ascend910B3","health":true,"custominfo":{"NetworkID":0}},{"id":"NPU-4","index":4,"count":4,"devmem":65536,"devcore":20,"type":"Ascend910B3","health":true,"custominfo":{"NetworkID":1}}])";

NodeInventory decode(const DeviceUnderTest& dut, const Pairs& annotations) {
  NodeFixture node("node-1");
  for (const auto& [k, v] : annotations)
    node.annotation(k, v);
  return dut.plugin().decode_node(node.view());
}

// The decode_node failure as "<status> <message>".
std::string decode_error(const DeviceUnderTest& dut, const Pairs& annotations) {
  try {
    static_cast<void>(decode(dut, annotations));
    return "accepted";
  } catch (const CallError& e) {
    return std::to_string(e.status()) + " " + e.what();
  }
}

TEST(AscendNode, GetNodeDevices) {
  const DeviceUnderTest dut("ascend");
  const NodeInventory inv = decode(
      dut,
      {{kRegister910A,
        R"([{"ID":"GPU-0","Count":4,"Devmem":8738,"Devcore":8,"Type":"huawei.com/Ascend910","Numa":0,"Health":true}])"}});
  ASSERT_EQ(inv.devices.size(), 1u);
  const DeviceRecord& d = inv.devices[0];
  EXPECT_EQ(d.id, "GPU-0");
  EXPECT_EQ(d.count, 4);
  EXPECT_EQ(d.memory_mib, 8738);
  EXPECT_EQ(d.cores, 8);
  EXPECT_EQ(d.type, "huawei.com/Ascend910");
  EXPECT_EQ(d.numa, 0);
  EXPECT_EQ(d.flags, HAMI_DEVICE_HEALTHY);
  EXPECT_EQ(d.mode, "vnpu") << "no hami-vnpu-core annotation, hamiVnpuCore false";
  EXPECT_EQ(d.attributes, "") << "no custominfo.NetworkID";
  EXPECT_TRUE(inv.pair_scores.empty());
}

TEST(AscendNode, RegistrationErrorsAreHamis) {
  const DeviceUnderTest dut("ascend");
  EXPECT_EQ(decode_error(dut, {{kRegister910A, "[]"}}),
            std::to_string(HAMI_INVALID_ARGUMENT) + " ascend.decode_node: no device found on node");
  EXPECT_EQ(decode_error(dut, {}), std::to_string(HAMI_NOT_FOUND) +
                                       " ascend.decode_node: annos not found "
                                       "hami.io/node-register-Ascend910A");
  const std::string json_error = decode_error(dut, {{kRegister910A, ""}});
  EXPECT_EQ(json_error.rfind(std::to_string(HAMI_INVALID_ARGUMENT) + " ascend.decode_node: ", 0),
            0u)
      << json_error;
  EXPECT_EQ(decode_error(dut, {{kRegister910A, R"([{"id":"a","count":"4"}])"}})
                .rfind(std::to_string(HAMI_INVALID_ARGUMENT), 0),
            0u);
  // Another chip's registration is not this instance's.
  NodeFixture other("node-2");
  other.annotation(kRegister910B3, k910B3Registration);
  EXPECT_FALSE(dut.plugin().decode_node_if_registered(other.view()).has_value());
}

TEST(AscendNode, NetworkIdReachesTheDevicesAttributes) {
  const DeviceUnderTest dut("ascend", R"({"commonWord": "Ascend910B3"})");
  const NodeInventory inv = decode(dut, {{kRegister910B3, k910B3Registration}});
  ASSERT_EQ(inv.devices.size(), 2u);
  EXPECT_EQ(inv.devices[0].attributes, "NetworkID=0");
  EXPECT_EQ(inv.devices[1].attributes, "NetworkID=1");
  EXPECT_EQ(inv.devices[1].index, 4u);
  EXPECT_EQ(inv.devices[1].type, "Ascend910B3");
  // A NetworkID that is not a number is no NetworkID (HAMi groups float64s).
  const NodeInventory odd = decode(
      dut,
      {{kRegister910B3,
        R"([{"id":"a","count":1,"type":"Ascend910B3","health":true,"custominfo":{"NetworkID":"0","x":1}},{"id":"b","count":1,"type":"Ascend910B3","health":true,"custominfo":{"NetworkID":2.5}}])"}});
  EXPECT_EQ(odd.devices[0].attributes, "");
  EXPECT_EQ(odd.devices[1].attributes, "NetworkID=2.5");
}

TEST(AscendNode, SoftSplitSupportIsFoldedIntoTheMode) {
  const DeviceUnderTest off("ascend", R"({"commonWord": "Ascend910B3"})");
  const DeviceUnderTest on("ascend", R"({"commonWord": "Ascend910B3", "hamiVnpuCore": true})");
  const Pairs reg = {{kRegister910B3, k910B3Registration}};
  EXPECT_EQ(decode(off, reg).devices[0].mode, "vnpu");
  EXPECT_EQ(decode(on, reg).devices[0].mode, "hami-core") << "config decides without annotation";
  for (const DeviceUnderTest* dut : {&off, &on}) {
    Pairs with = reg;
    with.emplace_back("hami-vnpu-core", "true");
    EXPECT_EQ(decode(*dut, with).devices[1].mode, "hami-core");
    with.back().second = "false";
    EXPECT_EQ(decode(*dut, with).devices[1].mode, "vnpu");
    with.back().second = "True";
    EXPECT_EQ(decode(*dut, with).devices[1].mode, "vnpu") << "only \"true\" means supported";
  }
}

TEST(AscendNode, CordonedDevicesAreMarked) {
  const DeviceUnderTest dut("ascend", R"({"commonWord": "Ascend910B3"})");
  const NodeInventory inv =
      decode(dut, {{kRegister910B3, k910B3Registration}, {"hami.io/device-cordon", "NPU-4"}});
  EXPECT_EQ(inv.devices[0].flags, HAMI_DEVICE_HEALTHY);
  EXPECT_EQ(inv.devices[1].flags, HAMI_DEVICE_HEALTHY | HAMI_DEVICE_CORDONED);
}

TEST(AscendNode, CheckHealth) {
  const DeviceUnderTest dut("ascend");
  const auto health = [&](const std::string& handshake) {
    NodeFixture node("node-1");
    node.annotation(kRegister910A, R"([{"id":"NPU-0","count":4,"health":true}])");
    node.annotation(kHandshake910A, handshake);
    return dut.plugin().node_health(node.view(), 1900000000);
  };
  HealthResult r = health("Requesting_2128-12-02 00:00:00");
  EXPECT_TRUE(r.healthy);
  EXPECT_FALSE(r.needs_update);
  EXPECT_TRUE(r.writes.empty());
  r = health("Unknown");
  EXPECT_TRUE(r.healthy);
  EXPECT_TRUE(r.needs_update);
  ASSERT_EQ(r.writes.size(), 1u);
  EXPECT_EQ(r.writes[0].key, kHandshake910A);
  EXPECT_EQ(r.writes[0].value.value_or("").rfind("Requesting_", 0), 0u);
  r = health("Requesting_2024-01-02 00:00:00");
  EXPECT_FALSE(r.healthy);
  EXPECT_FALSE(r.needs_update);
  // The count resource is the allocatable the expired stamp is judged by.
  NodeFixture node("node-2");
  node.annotation(kRegister910A, R"([{"id":"NPU-0","count":4,"health":true}])");
  node.annotation(kHandshake910A, "Requesting_2024-01-02 00:00:00");
  node.allocatable("huawei.com/Ascend910A", "8");
  r = dut.plugin().node_health(node.view(), 1900000000);
  EXPECT_TRUE(r.healthy);
}

TEST(AscendNode, CleanupRemovesTheHandshake) {
  const DeviceUnderTest dut("ascend");
  NodeFixture node("node-1");
  const std::vector<AnnotationWrite> w = dut.plugin().node_cleanup(node.view());
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].key, kHandshake910A);
  EXPECT_FALSE(w[0].value.has_value());
}

// Annotations written for `allocation` of a pod with `annotations`.
std::vector<AnnotationWrite> annotate(const DeviceUnderTest& dut, const PodAllocation& allocation,
                                      Pairs annotations = {}, std::int64_t now = 1787300000) {
  PodFixture pod;
  for (auto& [k, v] : annotations)
    pod.annotation(k, v);
  for (std::size_t i = 0; i < allocation.size(); ++i)
    pod.container({"c" + std::to_string(i), false, {}, {}, {}});
  return dut.plugin().annotate_allocation(pod.view(), "node-1", allocation, now);
}

AllocDevice npu(std::string id, std::string type, std::int64_t mem, std::int32_t cores) {
  AllocDevice d;
  d.id = std::move(id);
  d.type = std::move(type);
  d.memory_mib = mem;
  d.cores = cores;
  return d;
}

std::string write_of(const std::vector<AnnotationWrite>& writes, const std::string& key) {
  for (const AnnotationWrite& w : writes) {
    if (w.key == key)
      return w.value.value_or("<removed>");
  }
  return "<absent>";
}

TEST(AscendAllocation, PatchAnnotations) {
  const DeviceUnderTest dut("ascend");
  const std::string id = "device-0";
  const std::string type = "Ascend";
  hami_alloc_device dev{};
  dev.struct_size = sizeof dev;
  dev.id = hami_str{id.data(), id.size()};
  dev.type = hami_str{type.data(), type.size()};
  dev.memory_mib = 8738;
  dev.cores = 1;
  const hami_container_alloc container{&dev, 1};
  EXPECT_EQ(dut.plugin().encode_allocation(std::span(&container, 1)), "device-0,Ascend,8738,1:;");
  const std::vector<AnnotationWrite> w =
      annotate(dut, {{npu("device-0", "Ascend", 8738, 1)}}, {}, 1787300000);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(write_of(w, "huawei.com/Ascend910A"),
            R"([{"UUID":"device-0","temp":"vir08","memory":8738,"core":1}])");
  EXPECT_EQ(write_of(w, "predicate-time"), "1787300000");
  // No devices: nothing is written.
  EXPECT_TRUE(annotate(dut, {{}}).empty());
  EXPECT_TRUE(annotate(dut, {}).empty());
}

TEST(AscendAllocation, PatchAnnotationsVnpuCoreMode) {
  const DeviceUnderTest dut("ascend");
  const std::vector<AnnotationWrite> w = annotate(dut, {{npu("device-0", "Ascend910A", 8192, 5)}},
                                                  {{"huawei.com/vnpu-mode", "hami-core"}});
  EXPECT_EQ(write_of(w, "huawei.com/Ascend910A"),
            R"([{"UUID":"device-0","memory":8192,"core":5}])");
}

TEST(AscendAllocation, PatchAnnotationsZeroCore) {
  const DeviceUnderTest dut("ascend");
  const std::vector<AnnotationWrite> w = annotate(dut, {{npu("device-0", "Ascend910A", 8738, 0)}});
  EXPECT_EQ(write_of(w, "huawei.com/Ascend910A"),
            R"([{"UUID":"device-0","temp":"vir08","memory":8738}])");
}

TEST(AscendAllocation, RuntimeInfoCoversEveryContainerAndOmitsWholeCardTemplates) {
  const DeviceUnderTest dut("ascend", R"({"commonWord": "Ascend910B3"})");
  // Reference §1.6's example, then a whole card and a second container.
  EXPECT_EQ(
      write_of(annotate(dut, {{npu("NPU-4", "Ascend910B3", 16384, 0)}}), "huawei.com/Ascend910B3"),
      R"([{"UUID":"NPU-4","temp":"vir05_1c_16g","memory":16384}])");
  EXPECT_EQ(
      write_of(annotate(dut, {{npu("NPU-0", "Ascend910B3", 65536, 0)},
                              {},
                              {npu("NPU-1", "Ascend910B3", 20000, 0), npu("<&>", "x", 0, 0)}}),
               "huawei.com/Ascend910B3"),
      R"([{"UUID":"NPU-0","memory":65536},{"UUID":"NPU-1","temp":"vir10_3c_32g","memory":20000},{"UUID":"\u003c\u0026\u003e","temp":"vir05_1c_16g"}])");
}

}  // namespace
}  // namespace hami::testing
