// hygon.so through its ABI: HAMi reference §6 and the cases of
// pkg/device/hygon/device_test.go (Test_MutateAdmission, Test_checkDCUtype,
// Test_GetNodeDevices, Test_CheckHealth, Test_PatchAnnotations,
// Test_GenerateResourceRequests[_OutOfRangeValues|_MemoryFactorOverflow],
// TestDevices_Fit) with HAMi's expected values, plus the fixes for §6.9a
// (non-integer memory) and X16 (stamping nodes without DCUs).
#include <gtest/gtest.h>

#include "device_under_test.hpp"
#include "fit_run.hpp"
#include "k8s_views.hpp"
#include "request_run.hpp"
#include "share_fit_boundaries.hpp"
#include "standard_fit_table.hpp"

namespace hami::testing {
namespace {

constexpr const char* kRegister = "hami.io/node-dcu-register";
constexpr const char* kHandshake = "hami.io/node-handshake-dcu";

TEST(HygonDescribe, NamesAndAnnotationsAsHami) {
  const DeviceUnderTest dut("hygon");
  const DeviceDescription& d = dut.plugin().description();
  EXPECT_EQ(d.vendor, "DCU");
  EXPECT_EQ(d.count_resource, "hygon.com/dcunum");
  EXPECT_EQ(d.memory_resource, "hygon.com/dcumem");
  EXPECT_EQ(d.cores_resource, "hygon.com/dcucores");
  EXPECT_EQ(d.register_annotation, "hami.io/node-dcu-register");
  EXPECT_EQ(d.handshake_annotation, "hami.io/node-handshake-dcu");
  EXPECT_EQ(d.to_allocate_annotation, "hami.io/dcu-devices-to-allocate");
  EXPECT_EQ(d.allocated_annotation, "hami.io/dcu-devices-allocated");
  EXPECT_EQ(d.memory_factor, 1);
  EXPECT_EQ(d.cores_unit, HAMI_CORES_PERCENT);
}

TEST(HygonConfig, MemoryFactorScalesRequestsAndQuota) {
  // Webhook TestFitResourceQuotaNonNvidia: factor 2, 800 MiB asked → 1600.
  const DeviceUnderTest dut("hygon", R"({"memoryFactor": 2})");
  EXPECT_EQ(dut.plugin().description().memory_factor, 2);
  expect_request(request(dut, {{"hygon.com/dcunum", "1"}, {"hygon.com/dcumem", "800"}}).request, 1,
                 1600, 0, 100);
  // 0 means no scaling, like 1.
  const DeviceUnderTest zero("hygon", R"({"memoryFactor": 0})");
  EXPECT_EQ(zero.plugin().description().memory_factor, 1);
  expect_request(request(zero, {{"hygon.com/dcunum", "1"}, {"hygon.com/dcumem", "800"}}).request, 1,
                 800, 0, 100);
}

TEST(HygonConfig, SchemaRejectsWrongTypes) {
  EXPECT_THROW(DeviceUnderTest("hygon", R"({"memoryFactor": "2"})"), host::PluginLoadError);
  EXPECT_THROW(DeviceUnderTest("hygon", R"({"memoryFactor": -1})"), host::PluginLoadError);
  EXPECT_THROW(DeviceUnderTest("hygon", R"({"resourceCountName": 7})"), host::PluginLoadError);
  const DeviceUnderTest renamed("hygon", R"({"resourceCountName": "hygon.com/dcu"})");
  EXPECT_EQ(renamed.plugin().description().count_resource, "hygon.com/dcu");
}

TEST(HygonAdmission, MutateAdmission) {
  const DeviceUnderTest dut("hygon");
  PodFixture pod;
  pod.container({"c1", false, {{"hygon.com/dcunum", "1"}}, {}, {}});
  pod.container({"c2", false, {}, {{"hygon.com/dcunum", "1"}}, {}});
  pod.container({"c3", false, {{"hygon.com/dcumem", "1024"}}, {}, {}});
  const ContainerMutation m = dut.plugin().mutate_container(pod.view(), 0);
  EXPECT_TRUE(m.uses_device);
  EXPECT_TRUE(m.limits.empty());
  EXPECT_TRUE(m.env.empty());
  EXPECT_FALSE(m.runtime_class.has_value());
  EXPECT_FALSE(dut.plugin().mutate_container(pod.view(), 1).uses_device) << "requests only";
  EXPECT_FALSE(dut.plugin().mutate_container(pod.view(), 2).uses_device) << "no count";
}

TEST(HygonRequests, GenerateResourceRequests) {
  const DeviceUnderTest dut("hygon");
  expect_request(request(dut, {}).request, 0, 0, 0, 0);
  const Pairs all = {
      {"hygon.com/dcunum", "1"}, {"hygon.com/dcucores", "1"}, {"hygon.com/dcumem", "1024"}};
  expect_request(request(dut, all, all).request, 1, 1024, 0, 1);
  expect_request(request(dut, {{"hygon.com/dcunum", "1"}}, all).request, 1, 1024, 0, 1);
  expect_request(request(dut, {{"hygon.com/dcunum", "1"}},
                         {{"hygon.com/dcunum", "1"}, {"hygon.com/dcucores", "1"}})
                     .request,
                 1, 0, 100, 1);
  // Requests only; cores default to 100.
  expect_request(request(dut, {}, {{"hygon.com/dcunum", "2"}}).request, 2, 0, 100, 100);
  const RequestResult big = request(dut, {{"hygon.com/dcunum", "1"}, {"hygon.com/dcumem", "16Gi"}});
  EXPECT_EQ(big.request.count, 0);
  EXPECT_EQ(big.warning,
            "invalid hygon.com/dcumem value 16Gi in container c1: must be "
            "an integer number of MiB between 0 and 2147483647");
}

TEST(HygonRequests, OutOfRangeValuesGiveNoRequest) {
  const DeviceUnderTest dut("hygon");
  RequestResult r = request(dut, {{"hygon.com/dcunum", "2200000000"}});
  EXPECT_EQ(r.request.count, 0);
  EXPECT_FALSE(r.warning.empty());
  r = request(dut, {{"hygon.com/dcunum", "1"}, {"hygon.com/dcucores", "-1"}});
  EXPECT_EQ(r.request.count, 0);
  EXPECT_EQ(r.warning,
            "invalid hygon.com/dcucores value -1 in container c1: must "
            "be an integer percentage between 0 and 2147483647");
  r = request(dut, {{"hygon.com/dcunum", "0"}});
  EXPECT_EQ(r.request.count, 0);
  EXPECT_EQ(r.warning, "") << "a zero count is no request, not a mistake";
}

TEST(HygonRequests, MemoryFactorOverflow) {
  const DeviceUnderTest dut("hygon", R"({"memoryFactor": 1024})");
  const RequestResult r =
      request(dut, {{"hygon.com/dcunum", "1"}, {"hygon.com/dcumem", "3000000"}});
  EXPECT_EQ(r.request.count, 0);
  EXPECT_EQ(r.warning,
            "invalid hygon.com/dcumem value 3000000 in container c1: "
            "times memoryFactor 1024 exceeds 2147483647 MiB");
}

TEST(HygonRequests, NonIntegerMemoryOrCoresIsUnusableNotAWholeCard) {
  // HAMi §6.9a: AsInt64 fails for "1.5" and "500m", and HAMi then asks for
  // the whole card (memory) or 100 percent (cores). Here: no request.
  const DeviceUnderTest dut("hygon");
  for (const Pairs& limits : {Pairs{{"hygon.com/dcunum", "1"}, {"hygon.com/dcumem", "1.5"}},
                              Pairs{{"hygon.com/dcunum", "1"}, {"hygon.com/dcumem", "500m"}},
                              Pairs{{"hygon.com/dcunum", "1"}, {"hygon.com/dcucores", "0.5"}}}) {
    const RequestResult r = request(dut, limits);
    EXPECT_EQ(r.request.count, 0) << limits[1].second;
    EXPECT_NE(r.warning.find("invalid hygon.com/dcu"), std::string::npos) << r.warning;
  }
}

TEST(HygonNode, GetNodeDevices) {
  const DeviceUnderTest dut("hygon");
  NodeFixture node("node-1");
  node.annotation(kRegister, "test-0,1,1024,100,DCU,0,true,0,test:");
  const NodeInventory inv = dut.plugin().decode_node(node.view());
  ASSERT_EQ(inv.devices.size(), 1u);
  const DeviceRecord& d = inv.devices[0];
  EXPECT_EQ(d.id, "test-0");
  EXPECT_EQ(d.count, 1);
  EXPECT_EQ(d.memory_mib, 1024);
  EXPECT_EQ(d.cores, 100);
  EXPECT_EQ(d.type, "DCU");
  EXPECT_EQ(d.numa, 0);
  EXPECT_EQ(d.flags, HAMI_DEVICE_HEALTHY);
  EXPECT_EQ(d.index, 0u);
  EXPECT_EQ(d.mode, "test");

  NodeFixture two("node-2");
  two.annotation(kRegister,
                 "DCU-0,10,65536,100,DCU,0,true,0,hami-core:DCU-1,10,65536,100,DCU,1,false,1,"
                 "hami-core:");
  const NodeInventory inv2 = dut.plugin().decode_node(two.view());
  ASSERT_EQ(inv2.devices.size(), 2u);
  EXPECT_EQ(inv2.devices[1].id, "DCU-1");
  EXPECT_EQ(inv2.devices[1].index, 1u);
  EXPECT_EQ(inv2.devices[1].numa, 1);
  EXPECT_EQ(inv2.devices[1].flags, 0u);
  NodeFixture seven("node-3");
  seven.annotation(kRegister, "DCU-0,4,16384,100,DCU,0,T:");
  const NodeInventory inv3 = dut.plugin().decode_node(seven.view());
  ASSERT_EQ(inv3.devices.size(), 1u);
  EXPECT_EQ(inv3.devices[0].mode, "hami-core");
  EXPECT_EQ(inv3.devices[0].flags, HAMI_DEVICE_HEALTHY);
}

TEST(HygonNode, RegistrationErrorsAreHamis) {
  const DeviceUnderTest dut("hygon");
  NodeFixture bare("node-1");
  try {
    static_cast<void>(dut.plugin().decode_node(bare.view()));
    FAIL();
  } catch (const CallError& e) {
    EXPECT_EQ(e.status(), HAMI_NOT_FOUND);
    EXPECT_EQ(std::string(e.what()),
              "hygon.decode_node: annos not found hami.io/node-dcu-register");
  }
  EXPECT_FALSE(dut.plugin().decode_node_if_registered(bare.view()).has_value());
  const std::vector<std::pair<std::string, std::string>> cases = {
      {":", "no gpu found on node"},
      {"", "node annotation missing device separator"},
      {"test-0,1,1024,100,DCU:", "unexpected field count 5 in node annotation"},
      {"test-0:", "malformed node annotation segment: \"test-0\""},
      {"a,x,1024,100,DCU,0,true:",
       "invalid count field: strconv.ParseInt: parsing \"x\": invalid syntax"},
      {"a,1,4294967296,100,DCU,0,true:",
       "invalid memory field: strconv.ParseInt: parsing \"4294967296\": value out of range"},
      {"a,1,1,1e2,DCU,0,true:",
       "invalid core field: strconv.ParseInt: parsing \"1e2\": invalid syntax"},
      {"a,1,1,100,DCU,x,yes:",
       "invalid health field: strconv.ParseBool: parsing \"yes\": invalid "
       "syntax"},
      {"a,1,1,100,DCU,x,true:", "invalid numa field: strconv.Atoi: parsing \"x\": invalid syntax"},
      {"a,1,1,100,DCU,0,true,-1,hami-core:", "index field must not be negative: -1"},
  };
  for (const auto& [value, message] : cases) {
    NodeFixture node("node-2");
    node.annotation(kRegister, value);
    try {
      static_cast<void>(dut.plugin().decode_node(node.view()));
      ADD_FAILURE() << "accepted " << value;
    } catch (const CallError& e) {
      EXPECT_EQ(e.status(), HAMI_INVALID_ARGUMENT) << value;
      EXPECT_EQ(std::string(e.what()), "hygon.decode_node: " + message) << value;
    }
  }
}

TEST(HygonNode, CordonedDevicesAreMarked) {
  const DeviceUnderTest dut("hygon");
  NodeFixture node("node-1");
  node.annotation(kRegister, "DCU-0,4,1024,100,DCU,0,true:DCU-1,4,1024,100,DCU,0,true:");
  node.annotation("hami.io/device-cordon", "DCU-1");
  const NodeInventory inv = dut.plugin().decode_node(node.view());
  ASSERT_EQ(inv.devices.size(), 2u);
  EXPECT_EQ(inv.devices[0].flags, HAMI_DEVICE_HEALTHY);
  EXPECT_EQ(inv.devices[1].flags, HAMI_DEVICE_HEALTHY | HAMI_DEVICE_CORDONED);
}

TEST(HygonNode, CheckHealth) {
  const DeviceUnderTest dut("hygon");
  // Requesting state expired, no allocatable DCUs: unhealthy.
  NodeFixture expired("node-1");
  expired.annotation(kRegister, "DCU-0,4,1024,100,DCU,0,true:");
  expired.annotation(kHandshake, "Requesting_2025-01-07 00:00:00");
  HealthResult r = dut.plugin().node_health(expired.view(), 1900000000);
  EXPECT_FALSE(r.healthy);
  EXPECT_FALSE(r.needs_update);
  EXPECT_TRUE(r.writes.empty());
  // Expired, but the node still offers DCUs: healthy, nothing re-read.
  NodeFixture offering("node-2");
  offering.annotation(kHandshake, "Requesting_2025-01-07 00:00:00");
  offering.allocatable("hygon.com/dcunum", "4");
  r = dut.plugin().node_health(offering.view(), 1900000000);
  EXPECT_TRUE(r.healthy);
  EXPECT_FALSE(r.needs_update);
  // Unknown state: healthy, re-read, and the scheduler stamps its request.
  NodeFixture unknown("node-3");
  unknown.annotation(kRegister, "DCU-0,4,1024,100,DCU,0,true:");
  unknown.annotation(kHandshake, "Unknown");
  r = dut.plugin().node_health(unknown.view(), 1900000000);
  EXPECT_TRUE(r.healthy);
  EXPECT_TRUE(r.needs_update);
  ASSERT_EQ(r.writes.size(), 1u);
  EXPECT_EQ(r.writes[0].key, kHandshake);
  ASSERT_TRUE(r.writes[0].value.has_value());
  EXPECT_EQ(r.writes[0].value->rfind("Requesting_", 0), 0u);
  EXPECT_EQ(r.writes[0].value->size(), std::string("Requesting_2030-03-17 17:46:40").size());
}

TEST(HygonNode, NodesWithoutDcusAreNotStamped) {
  // HAMi X16: HAMi stamps hami.io/node-handshake-dcu on every node.
  const DeviceUnderTest dut("hygon");
  NodeFixture plain("cpu-node");
  const HealthResult r = dut.plugin().node_health(plain.view(), 1900000000);
  EXPECT_TRUE(r.healthy);
  EXPECT_TRUE(r.needs_update);
  EXPECT_TRUE(r.writes.empty());
}

TEST(HygonNode, CleanupRemovesTheHandshake) {
  const DeviceUnderTest dut("hygon");
  NodeFixture node("node-1");
  const std::vector<AnnotationWrite> writes = dut.plugin().node_cleanup(node.view());
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes[0].key, kHandshake);
  EXPECT_FALSE(writes[0].value.has_value());
}

TEST(HygonAllocation, PatchAnnotations) {
  const DeviceUnderTest dut("hygon");
  const std::string id = "test1";
  const std::string type = "DCU";
  hami_alloc_device dev{};
  dev.struct_size = sizeof dev;
  dev.id = hami_str{id.data(), id.size()};
  dev.type = hami_str{type.data(), type.size()};
  dev.memory_mib = 2048;
  dev.cores = 1;
  const hami_container_alloc container{&dev, 1};
  const std::string value = dut.plugin().encode_allocation(std::span(&container, 1));
  EXPECT_EQ(value, "test1,DCU,2048,1:;");
  EXPECT_EQ(dut.plugin().encode_allocation({}), "");
  const PodAllocation decoded = dut.plugin().decode_allocation("DCU-1,DCU,2000,30:;");
  ASSERT_EQ(decoded.size(), 1u);
  ASSERT_EQ(decoded[0].size(), 1u);
  EXPECT_EQ(decoded[0][0].id, "DCU-1");
  EXPECT_EQ(decoded[0][0].type, "DCU");
  EXPECT_EQ(decoded[0][0].memory_mib, 2000);
  EXPECT_EQ(decoded[0][0].cores, 30);
}

TEST(HygonFit, CheckDcuType) {
  const DeviceUnderTest dut("hygon");
  struct Case {
    Pairs annotations;
    std::string card_type;
    bool allowed;
  };
  const std::vector<Case> cases = {
      {{{"hygon.com/use-dcutype", "dcu"}}, "dcu", true},
      {{{"hygon.com/use-dcutype", "dcu"}}, "test", false},
      {{}, "dcu", true},
      {{{"hygon.com/use-dcutype", "dcu,test"}}, "dcu", true},
      {{{"hygon.com/nouse-dcutype", "dcu"}}, "dcu", false},
      {{{"hygon.com/nouse-dcutype", "test,dcu"}}, "test", false},
      {{{"hygon.com/nouse-dcutype", "dcu"}}, "test", true},
      {{{"hygon.com/use-dcutype", ""}}, "dcu", true},
      {{{"hygon.com/nouse-dcutype", ""}}, "dcu", true},
      {{{"hygon.com/nouse-dcutype", "   "}}, "dcu", true},
  };
  for (const Case& c : cases) {
    const FitOutcome o = run_fit(dut, {standard_card(c.card_type, "dev-0", 1024)},
                                 make_request(1, 512, 0, 50), c.annotations);
    EXPECT_EQ(o.result.fits, c.allowed) << c.card_type;
    EXPECT_EQ(o.result.reason, c.allowed ? "" : "1/1 CardTypeMismatch") << c.card_type;
  }
}

TEST(HygonFit, StandardTable) {
  const DeviceUnderTest dut("hygon");
  for (const StandardFitCase& c :
       standard_fit_cases({"DCU", "hygon.com/use-gpuuuid", "hygon.com/nouse-gpuuuid"})) {
    expect_standard_fit(dut, c);
  }
}

TEST(HygonFit, TypeMismatchThroughTheTypeSelector) {
  // T4's reason, reached the way a pod can reach it through the ABI.
  const DeviceUnderTest dut("hygon");
  const FitOutcome o =
      run_fit(dut, {standard_card("DCU", "dev-0", 128)}, make_request(1, 512, 0, 50),
              {{"hygon.com/use-dcutype", "OtherType"}});
  EXPECT_FALSE(o.result.fits);
  EXPECT_EQ(o.result.reason, "1/1 CardTypeMismatch");
}

TEST(HygonFit, PicksCarryTheVendorWordAndTheTakenShare) {
  const DeviceUnderTest dut("hygon");
  // T8: 120 cores are taken as 100; T12: 10 percent of 1280 MiB is 128.
  FitOutcome o =
      run_fit(dut, {standard_card("Hygon DCU K100", "dev-0", 1280)}, make_request(1, 512, 0, 120));
  ASSERT_TRUE(o.result.fits);
  EXPECT_EQ(o.types, std::vector<std::string>{"DCU"});
  EXPECT_EQ(o.picks[0].memory_mib, 512);
  EXPECT_EQ(o.picks[0].cores, 100);
  o = run_fit(dut, {standard_card("DCU", "dev-0", 1280, 20, 10)}, make_request(1, 0, 10, 20));
  ASSERT_TRUE(o.result.fits);
  EXPECT_EQ(o.picks[0].memory_mib, 128);
  EXPECT_EQ(o.picks[0].cores, 20);
  // A whole-card request (memory 0, percent 100) takes all free memory.
  o = run_fit(dut, {standard_card("DCU", "dev-0", 65536)}, make_request(1, 0, 100, 100));
  ASSERT_TRUE(o.result.fits);
  EXPECT_EQ(o.picks[0].memory_mib, 65536);
}

// Every capacity check of the share-fit at its boundary (reference §6.5).
TEST(HygonCapacity, EveryShareFitCheckAtItsBoundary) {
  const DeviceUnderTest dut("hygon");
  for (const BoundaryCase& c : share_fit_boundary_cases("DCU"))
    expect_boundary(dut, c);
}

}  // namespace
}  // namespace hami::testing
