// cambricon.so through its ABI: HAMi reference §4 and the cases of
// pkg/device/cambricon/device_test.go (Test_GetNodeDevices,
// Test_MutateAdmission, Test_ParseConfig as far as a config section goes,
// Test_GenerateResourceRequests) with HAMi's expected values, plus the
// description of the vendor's own node lock and the decisions on HAMi X11
// (stale devices) and X12 (negative cores, unchecked counts).
// The lock tests of §4.8 (Test_setNodeLock, Test_LockNode,
// Test_ReleaseNodeLock) are the host's: it takes and releases the lock from
// the description checked here. TestDevices_AddResourceUsage is the host's
// usage charge and has no plugin call.
#include <gtest/gtest.h>

#include "device_under_test.hpp"
#include "k8s_views.hpp"
#include "raw_device_plugin.hpp"
#include "request_run.hpp"

namespace hami::testing {
namespace {

constexpr const char* kCount = "cambricon.com/vmlu";
constexpr const char* kMemory = "cambricon.com/mlu.smlu.vmemory";
constexpr const char* kCores = "cambricon.com/mlu.smlu.vcore";

std::string text(hami_str s) {
  return s.len == 0 ? std::string() : std::string(s.ptr, s.len);
}

TEST(CambriconDescribe, NamesAndAnnotationsAsHami) {
  const DeviceUnderTest dut("cambricon");
  const DeviceDescription& d = dut.plugin().description();
  EXPECT_EQ(d.vendor, "MLU");
  EXPECT_EQ(d.count_resource, kCount);
  EXPECT_EQ(d.memory_resource, kMemory);
  EXPECT_EQ(d.memory_percent_resource, "");
  EXPECT_EQ(d.cores_resource, kCores);
  EXPECT_EQ(d.priority_resource, "");
  EXPECT_EQ(d.register_annotation, "") << "the inventory is the node's capacity";
  EXPECT_EQ(d.handshake_annotation, "");
  EXPECT_EQ(d.to_allocate_annotation, "hami.io/cambricon-mlu-devices-to-allocate");
  EXPECT_EQ(d.allocated_annotation, "hami.io/cambricon-mlu-devices-allocated");
  EXPECT_EQ(d.memory_factor, 256);
  EXPECT_EQ(d.cores_unit, HAMI_CORES_PERCENT);
  EXPECT_EQ(d.vendor_flags, 0u);
  EXPECT_EQ(d.allocation_annotations,
            (std::vector<std::string>{"CAMBRICON_DSMLU_ASSIGNED", "CAMBRICON_DSMLU_PROFILE"}));
  EXPECT_TRUE(d.partition_metrics.empty());
  EXPECT_EQ(d.node_lock, HAMI_NODE_LOCK_OWN);
  EXPECT_FALSE(d.takes_node_lock()) << "not hami.io/mutex.lock";
}

TEST(CambriconDescribe, OwnNodeLockAsHami) {
  // HAMi's cambricon.com/dsmlu.lock: an RFC 3339 time, stale after 2 minutes.
  const RawLibrary library(DeviceUnderTest::plugin_dir() + "/cambricon.so");
  const RawInstance instance(library, "{}");
  hami_device_description d{};
  d.struct_size = sizeof d;
  char buf[256] = {};
  ASSERT_EQ(instance.vtable().describe(instance.get(), &d, hami_errbuf{buf, sizeof buf}), HAMI_OK)
      << buf;
  EXPECT_EQ(d.node_lock, HAMI_NODE_LOCK_OWN);
  EXPECT_EQ(text(d.own_lock_annotation), "cambricon.com/dsmlu.lock");
  EXPECT_EQ(d.own_lock_expiry_seconds, 120);
}

TEST(CambriconConfig, ChartSectionAndRenamedResources) {
  const DeviceUnderTest chart("cambricon", R"({"resourceCountName": "cambricon.com/vmlu",
      "resourceMemoryName": "cambricon.com/mlu.smlu.vmemory",
      "resourceCoreName": "cambricon.com/mlu.smlu.vcore", "someFutureKey": 1})");
  EXPECT_EQ(chart.plugin().description().count_resource, kCount);
  const DeviceUnderTest nulls("cambricon", R"({"resourceCountName": null})");
  EXPECT_EQ(nulls.plugin().description().count_resource, kCount);
  // HAMi's flag defaults, given as a section (the flags themselves have no
  // effect in HAMi, §0.2).
  const DeviceUnderTest renamed("cambricon", R"({"resourceCountName": "cambricon.com/mlu",
      "resourceMemoryName": "cambricon.com/mlu370.smlu.vmemory",
      "resourceCoreName": "cambricon.com/mlu370.smlu.vcore"})");
  const DeviceDescription& d = renamed.plugin().description();
  EXPECT_EQ(d.count_resource, "cambricon.com/mlu");
  EXPECT_EQ(d.memory_resource, "cambricon.com/mlu370.smlu.vmemory");
  EXPECT_EQ(d.cores_resource, "cambricon.com/mlu370.smlu.vcore");
  expect_request(request(renamed, {{"cambricon.com/mlu", "1"},
                                   {"cambricon.com/mlu370.smlu.vmemory", "4"},
                                   {"cambricon.com/mlu370.smlu.vcore", "30"}})
                     .request,
                 1, 1024, 0, 30);
  NodeFixture node("n1");
  node.capacity("cambricon.com/mlu370.smlu.vcore", "200");
  node.capacity("cambricon.com/mlu370.smlu.vmemory", "192");
  EXPECT_EQ(renamed.plugin().decode_node(node.view()).devices.size(), 2u);
}

TEST(CambriconConfig, SchemaRejectsWrongTypes) {
  EXPECT_THROW(DeviceUnderTest("cambricon", R"({"resourceCountName": 7})"), host::PluginLoadError);
  EXPECT_THROW(DeviceUnderTest("cambricon", R"({"resourceMemoryName": true})"),
               host::PluginLoadError);
  EXPECT_THROW(DeviceUnderTest("cambricon", R"({"resourceCoreName": ["a"]})"),
               host::PluginLoadError);
  EXPECT_THROW(DeviceUnderTest("cambricon", R"([])"), host::PluginLoadError);
}

TEST(CambriconAdmission, MutateAdmission) {
  const DeviceUnderTest dut("cambricon");
  PodFixture pod;
  pod.container({"c1", false, {{kCount, "1"}}, {}, {}});
  pod.container({"c2", false, {}, {{kCount, "1"}}, {}});
  pod.container({"c3", false, {{kMemory, "10"}, {kCores, "10"}}, {}, {}});
  const ContainerMutation m = dut.plugin().mutate_container(pod.view(), 0);
  EXPECT_TRUE(m.uses_device);
  EXPECT_TRUE(m.limits.empty());
  EXPECT_TRUE(m.env.empty());
  EXPECT_TRUE(m.requests.empty());
  EXPECT_TRUE(m.pod_annotations.empty());
  EXPECT_FALSE(m.runtime_class.has_value());
  EXPECT_FALSE(dut.plugin().mutate_container(pod.view(), 1).uses_device) << "requests only";
  EXPECT_FALSE(dut.plugin().mutate_container(pod.view(), 2).uses_device) << "no count";
}

TEST(CambriconRequests, GenerateResourceRequests) {
  const DeviceUnderTest dut("cambricon");
  expect_request(request(dut, {}).request, 0, 0, 0, 0);
  expect_request(request(dut, {{kCount, "1"}, {kMemory, "1000"}, {kCores, "2"}}).request, 1, 256000,
                 0, 2);
  expect_request(request(dut, {{kCount, "1"}, {kMemory, "1000"}}).request, 1, 256000, 0, 100);
  expect_request(request(dut, {{kCount, "1"}, {kCores, "2"}}).request, 1, 0, 100, 2);
  for (const char* memory : {"16Gi", "16.0Gi"}) {
    const RequestResult r = request(dut, {{kCount, "1"}, {kMemory, memory}});
    EXPECT_EQ(r.request.count, 0) << memory;
    EXPECT_EQ(r.warning, std::string("invalid cambricon.com/mlu.smlu.vmemory value ") + memory +
                             " in container c1: must be an integer number of 256 MiB units "
                             "between 0 and 8388607");
  }
}

TEST(CambriconRequests, LimitsBeforeRequests) {
  const DeviceUnderTest dut("cambricon");
  expect_request(request(dut, {}, {{kCount, "2"}, {kMemory, "8"}, {kCores, "25"}}).request, 2, 2048,
                 0, 25);
  expect_request(
      request(dut, {{kCount, "1"}, {kMemory, "4"}}, {{kCount, "3"}, {kMemory, "8"}, {kCores, "25"}})
          .request,
      1, 1024, 0, 25);
}

TEST(CambriconRequests, MemoryRangeIsHamis) {
  // 0..8388607 units (INT32_MAX / 256); 0 is the whole card.
  const DeviceUnderTest dut("cambricon");
  expect_request(request(dut, {{kCount, "1"}, {kMemory, "0"}}).request, 1, 0, 100, 100);
  expect_request(request(dut, {{kCount, "1"}, {kMemory, "8388607"}}).request, 1, 2147483392, 0,
                 100);
  for (const char* memory : {"8388608", "-1", "1.5", "500m"}) {
    const RequestResult r = request(dut, {{kCount, "1"}, {kMemory, memory}});
    EXPECT_EQ(r.request.count, 0) << memory;
    EXPECT_NE(r.warning.find("invalid cambricon.com/mlu.smlu.vmemory value"), std::string::npos)
        << r.warning;
  }
}

TEST(CambriconRequests, HamiX12NegativeCoresAndBadCountsAreUnusable) {
  // HAMi takes negative cores as given (the pick then frees compute on the
  // card) and reads any count AsInt64 without a range check.
  const DeviceUnderTest dut("cambricon");
  RequestResult r = request(dut, {{kCount, "1"}, {kCores, "-1"}});
  EXPECT_EQ(r.request.count, 0);
  EXPECT_EQ(r.warning,
            "invalid cambricon.com/mlu.smlu.vcore value -1 in container c1: must be an integer "
            "percentage between 0 and 2147483647");
  for (const char* count : {"-1", "1.5", "2200000000"}) {
    r = request(dut, {{kCount, count}});
    EXPECT_EQ(r.request.count, 0) << count;
    EXPECT_EQ(r.warning, std::string("invalid cambricon.com/vmlu value ") + count +
                             " in container c1: must be an integer between 1 and 2147483647");
  }
  r = request(dut, {{kCount, "0"}});
  EXPECT_EQ(r.request.count, 0);
  EXPECT_EQ(r.warning, "") << "a zero count is no request, not a mistake";
  // Cores above 100 are a request; fit takes them as 100 (T8).
  expect_request(request(dut, {{kCount, "1"}, {kCores, "120"}}).request, 1, 0, 100, 120);
}

TEST(CambriconRequests, NonIntegerCoresAreUnusableNotAWholeCard) {
  // HAMi ignores cores that AsInt64 cannot read ("0.5", "500m") and asks
  // for 100 percent, a whole card taken exclusively. Here: no request.
  const DeviceUnderTest dut("cambricon");
  for (const char* cores : {"0.5", "500m"}) {
    const RequestResult r = request(dut, {{kCount, "1"}, {kCores, cores}});
    EXPECT_EQ(r.request.count, 0) << cores;
    EXPECT_NE(r.warning.find("invalid cambricon.com/mlu.smlu.vcore value"), std::string::npos)
        << r.warning;
  }
}

TEST(CambriconNode, GetNodeDevices) {
  const DeviceUnderTest dut("cambricon");
  NodeFixture node("test");
  node.capacity(kCores, "1");
  node.capacity(kMemory, "1");
  const NodeInventory inv = dut.plugin().decode_node(node.view());
  ASSERT_EQ(inv.devices.size(), 1u);
  const DeviceRecord& d = inv.devices[0];
  EXPECT_EQ(d.id, "test-cambricon-mlu-0");
  EXPECT_EQ(d.index, 0u);
  EXPECT_EQ(d.count, 100);
  EXPECT_EQ(d.memory_mib, 25600);
  EXPECT_EQ(d.cores, 100);
  EXPECT_EQ(d.type, "MLU");
  EXPECT_EQ(d.mode, "");
  EXPECT_EQ(d.numa, 0);
  EXPECT_EQ(d.flags, HAMI_DEVICE_HEALTHY);
  EXPECT_TRUE(inv.pair_scores.empty());
}

TEST(CambriconNode, OneMluPerHundredVcoreWithAnEvenMemorySplit) {
  const DeviceUnderTest dut("cambricon");
  NodeFixture node("node1");
  node.capacity(kCores, "400");
  node.capacity(kMemory, "384");
  node.capacity(kCount, "40");
  const NodeInventory inv = dut.plugin().decode_node(node.view());
  ASSERT_EQ(inv.devices.size(), 4u);
  for (std::uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(inv.devices[i].id, "node1-cambricon-mlu-" + std::to_string(i));
    EXPECT_EQ(inv.devices[i].index, i);
    EXPECT_EQ(inv.devices[i].memory_mib, 24576);
  }
  // HAMi §4.9e: 150 vcore are two MLUs (0 × 100 and 1 × 100 are below
  // 150), memory 30 × 256 × 100 / 150 = 5120 MiB each.
  NodeFixture odd("node2");
  odd.capacity(kCores, "150");
  odd.capacity(kMemory, "30");
  const NodeInventory inv2 = dut.plugin().decode_node(odd.view());
  ASSERT_EQ(inv2.devices.size(), 2u);
  EXPECT_EQ(inv2.devices[1].id, "node2-cambricon-mlu-1");
  EXPECT_EQ(inv2.devices[1].memory_mib, 5120);
  // No vmemory capacity: MLUs without memory, as HAMi reads a missing
  // quantity as 0.
  NodeFixture nomem("node3");
  nomem.capacity(kCores, "100");
  const NodeInventory inv3 = dut.plugin().decode_node(nomem.view());
  ASSERT_EQ(inv3.devices.size(), 1u);
  EXPECT_EQ(inv3.devices[0].memory_mib, 0);
}

TEST(CambriconNode, OnlyCapacityCounts) {
  // Allocatable, labels and annotations are not read.
  const DeviceUnderTest dut("cambricon");
  NodeFixture node("n1");
  node.allocatable(kCores, "400");
  node.allocatable(kMemory, "384");
  node.annotation("hami.io/node-mlu-register", "x");
  EXPECT_FALSE(dut.plugin().decode_node_if_registered(node.view()).has_value());
}

TEST(CambriconNode, NodesWithoutMluCapacityAreNotThisVendors) {
  const DeviceUnderTest dut("cambricon");
  NodeFixture bare("cpu-node");
  bare.capacity("cpu", "8");
  try {
    static_cast<void>(dut.plugin().decode_node(bare.view()));
    FAIL();
  } catch (const CallError& e) {
    EXPECT_EQ(e.status(), HAMI_NOT_FOUND);
    EXPECT_EQ(std::string(e.what()),
              "cambricon.decode_node: device not found cambricon.com/mlu.smlu.vcore");
  }
  EXPECT_FALSE(dut.plugin().decode_node_if_registered(bare.view()).has_value());
}

TEST(CambriconNode, HamiX11ZeroVcoreForgetsTheMlus) {
  // kubelet zeroes a resource whose device plugin went away. HAMi's decode
  // then fails ("device not found") and its cache keeps the old MLUs. Here
  // the node has no MLUs (HAMI_NOT_FOUND), so the host drops them; only a
  // malformed capacity keeps the last good inventory.
  const DeviceUnderTest dut("cambricon");
  NodeFixture node("n1");
  node.capacity(kCores, "0");
  node.capacity(kMemory, "0");
  node.capacity(kCount, "0");
  try {
    static_cast<void>(dut.plugin().decode_node(node.view()));
    FAIL();
  } catch (const CallError& e) {
    EXPECT_EQ(e.status(), HAMI_NOT_FOUND);
    EXPECT_EQ(std::string(e.what()),
              "cambricon.decode_node: device not found cambricon.com/mlu.smlu.vcore");
  }
}

TEST(CambriconNode, MalformedCapacityIsRefused) {
  const DeviceUnderTest dut("cambricon");
  const std::string not_found = "device not found cambricon.com/mlu.smlu.vcore";
  struct Case {
    Pairs capacity;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{{kMemory, "384"}}, not_found},
      {{{kCount, "4"}}, not_found},
      {{{kCores, "1.5"}, {kMemory, "384"}}, not_found},
      {{{kCores, "abc"}}, not_found},
      {{{kCores, "-100"}}, not_found},
      {{{kCores, "409700"}},
       "invalid cambricon.com/mlu.smlu.vcore capacity 409700: more than 4096 MLUs"},
      {{{kCores, "100"}, {kMemory, "x"}},
       "invalid cambricon.com/mlu.smlu.vmemory capacity x: must be a whole number of 256 MiB "
       "units"},
      {{{kCores, "100"}, {kMemory, "-1"}},
       "invalid cambricon.com/mlu.smlu.vmemory capacity -1: must be a whole number of 256 MiB "
       "units"},
      {{{kCores, "100"}, {kMemory, "8388608"}},
       "invalid cambricon.com/mlu.smlu.vmemory capacity 8388608: more than 2147483647 MiB per "
       "MLU"},
      {{{kCores, "100"}, {kMemory, "9e18"}},
       "invalid cambricon.com/mlu.smlu.vmemory capacity 9e18: more than 2147483647 MiB per MLU"},
  };
  for (const Case& c : cases) {
    NodeFixture node("n1");
    for (const auto& [k, v] : c.capacity)
      node.capacity(k, v);
    try {
      static_cast<void>(dut.plugin().decode_node(node.view()));
      ADD_FAILURE() << "accepted " << c.capacity[0].second;
    } catch (const CallError& e) {
      EXPECT_EQ(e.status(), HAMI_INVALID_ARGUMENT) << c.message;
      EXPECT_EQ(std::string(e.what()), "cambricon.decode_node: " + c.message);
    }
  }
  // The largest accepted: 4096 MLUs, and INT32_MAX MiB per MLU at most
  // (8388607 units on one MLU).
  NodeFixture big("n2");
  big.capacity(kCores, "409600");
  big.capacity(kMemory, "1572864");
  const NodeInventory inv = dut.plugin().decode_node(big.view());
  ASSERT_EQ(inv.devices.size(), 4096u);
  EXPECT_EQ(inv.devices[4095].id, "n2-cambricon-mlu-4095");
  EXPECT_EQ(inv.devices[4095].index, 4095u);
  EXPECT_EQ(inv.devices[0].memory_mib, 98304);
  NodeFixture full("n3");
  full.capacity(kCores, "100");
  full.capacity(kMemory, "8388607");
  EXPECT_EQ(dut.plugin().decode_node(full.view()).devices.at(0).memory_mib, 2147483392);
  // Exactly INT32_MAX MiB per MLU: 87073751 × 25600 / 1038 vcore, floored;
  // one unit more is 2147483671.
  NodeFixture exact("n4");
  exact.capacity(kCores, "1038");
  exact.capacity(kMemory, "87073751");
  const NodeInventory at_max = dut.plugin().decode_node(exact.view());
  ASSERT_EQ(at_max.devices.size(), 11u);
  EXPECT_EQ(at_max.devices[10].memory_mib, 2147483647);
  NodeFixture over("n5");
  over.capacity(kCores, "1038");
  over.capacity(kMemory, "87073752");
  try {
    static_cast<void>(dut.plugin().decode_node(over.view()));
    ADD_FAILURE() << "accepted 2147483671 MiB per MLU";
  } catch (const CallError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cambricon.decode_node: invalid cambricon.com/mlu.smlu.vmemory capacity 87073752: "
              "more than 2147483647 MiB per MLU");
  }
}

TEST(CambriconNode, CheckHealthIsAlwaysHealthyAndNothingIsCleaned) {
  const DeviceUnderTest dut("cambricon");
  NodeFixture node("n1");
  node.capacity(kCores, "100");
  const HealthResult r = dut.plugin().node_health(node.view(), 1900000000);
  EXPECT_TRUE(r.healthy);
  EXPECT_TRUE(r.needs_update);
  EXPECT_TRUE(r.writes.empty()) << "no handshake";
  NodeFixture plain("cpu-node");
  const HealthResult p = dut.plugin().node_health(plain.view(), 1900000000);
  EXPECT_TRUE(p.healthy);
  EXPECT_TRUE(p.writes.empty());
  EXPECT_TRUE(dut.plugin().node_cleanup(node.view()).empty());
}

}  // namespace
}  // namespace hami::testing
