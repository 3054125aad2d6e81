// biren.so through its ABI: HAMi reference §3 and the cases of
// pkg/device/biren/device_test.go (Test_MutateAdmission, Test_GetNodeDevices,
// Test_CheckHealth, Test_PatchAnnotations, Test_GenerateResourceRequests,
// TestDevices_Fit) with HAMi's expected values, plus the fixes for §3.9a
// (raw-device types) and §3.9b (count range).
#include <gtest/gtest.h>

#include "device_under_test.hpp"
#include "fit_run.hpp"
#include "k8s_views.hpp"
#include "request_run.hpp"
#include "share_fit_boundaries.hpp"
#include "standard_fit_table.hpp"

namespace hami::testing {
namespace {

constexpr const char* kCount = "birentech.com/gpu";
constexpr const char* kRegister = "hami.io/node-biren-register";
constexpr const char* kHandshake = "hami.io/node-handshake-biren";
constexpr const char* kUseUuid = "birentech.com/use-gpuuuid";
constexpr const char* kNoUseUuid = "birentech.com/nouse-gpuuuid";

// TestDevices_Fit's device: Count 1, no memory, no cores, type Biren.
DeviceState biren_card(std::string id, std::int32_t used = 0, std::int32_t count = 1) {
  DeviceState d;
  d.id = std::move(id);
  d.type = "Biren";
  d.count = count;
  d.memory_mib = 0;
  d.cores = 0;
  d.used = used;
  return d;
}

TEST(BirenDescribe, NamesAndAnnotationsAsHami) {
  const DeviceUnderTest dut("biren");
  const DeviceDescription& d = dut.plugin().description();
  EXPECT_EQ(d.vendor, "Biren");
  EXPECT_EQ(d.count_resource, "birentech.com/gpu");
  EXPECT_EQ(d.memory_resource, "");
  EXPECT_EQ(d.cores_resource, "");
  EXPECT_EQ(d.register_annotation, "hami.io/node-biren-register");
  EXPECT_EQ(d.handshake_annotation, "hami.io/node-handshake-biren");
  EXPECT_EQ(d.to_allocate_annotation, "hami.io/Biren-devices-to-allocate");
  EXPECT_EQ(d.allocated_annotation, "hami.io/Biren-devices-allocated");
  EXPECT_EQ(d.memory_factor, 1);
  const DeviceUnderTest renamed("biren", R"({"resourceCountName": "birentech.com/vgpu"})");
  EXPECT_EQ(renamed.plugin().description().count_resource, "birentech.com/vgpu");
  EXPECT_THROW(DeviceUnderTest("biren", R"({"resourceCountName": 1})"), host::PluginLoadError);
}

TEST(BirenAdmission, MutateAdmission) {
  const DeviceUnderTest dut("biren");
  PodFixture pod;
  pod.container({"c1", false, {{kCount, "1"}}, {}, {}});
  pod.container({"c2", false, {}, {{kCount, "1"}}, {}});
  const ContainerMutation m = dut.plugin().mutate_container(pod.view(), 0);
  EXPECT_TRUE(m.uses_device);
  EXPECT_TRUE(m.limits.empty());
  EXPECT_TRUE(m.env.empty());
  EXPECT_FALSE(dut.plugin().mutate_container(pod.view(), 1).uses_device) << "requests only";
}

TEST(BirenRequests, GenerateResourceRequests) {
  const DeviceUnderTest dut("biren");
  EXPECT_EQ(request(dut, {}).request.count, 0);
  for (const auto& [limits, requests] : std::vector<std::pair<Pairs, Pairs>>{
           {{{kCount, "1"}}, {{kCount, "1"}}}, {{{kCount, "1"}}, {}}, {{}, {{kCount, "1"}}}}) {
    const hami_device_request r = request(dut, limits, requests).request;
    EXPECT_EQ(r.count, 1);
    EXPECT_EQ(r.memory_mib, 0);
    EXPECT_EQ(r.memory_percent, 100);
    EXPECT_EQ(r.cores, 0);
  }
}

TEST(BirenRequests, CountOutOfRangeIsUnusable) {
  // HAMi §3.9b: HAMi wraps 2200000000 to a negative int32 and drops it
  // silently; 4294967297 would wrap to 1.
  const DeviceUnderTest dut("biren");
  for (const char* bad : {"2200000000", "4294967297", "-1", "1.5"}) {
    const RequestResult r = request(dut, {{kCount, bad}});
    EXPECT_EQ(r.request.count, 0) << bad;
    EXPECT_EQ(r.warning, std::string("invalid birentech.com/gpu value ") + bad +
                             " in container c1: must be an integer between 1 and 2147483647");
  }
  const RequestResult zero = request(dut, {{kCount, "0"}});
  EXPECT_EQ(zero.request.count, 0);
  EXPECT_EQ(zero.warning, "");
}

TEST(BirenNode, GetNodeDevices) {
  const DeviceUnderTest dut("biren");
  NodeFixture node("node-1");
  node.annotation(
      kRegister,
      R"([{"id":"7-0","count":1,"devmem":32768,"type":"Biren","health":true,"devicepairscore":{}}])");
  const NodeInventory inv = dut.plugin().decode_node(node.view());
  ASSERT_EQ(inv.devices.size(), 1u);
  const DeviceRecord& d = inv.devices[0];
  EXPECT_EQ(d.id, "7-0");
  EXPECT_EQ(d.count, 1);
  EXPECT_EQ(d.memory_mib, 32768);
  EXPECT_EQ(d.cores, 100) << "HAMi forces Devcore to 100";
  EXPECT_EQ(d.type, "Biren");
  EXPECT_EQ(d.flags, HAMI_DEVICE_HEALTHY);

  NodeFixture bare("node-2");
  try {
    static_cast<void>(dut.plugin().decode_node(bare.view()));
    FAIL();
  } catch (const CallError& e) {
    EXPECT_EQ(e.status(), HAMI_NOT_FOUND);
    EXPECT_EQ(std::string(e.what()),
              "biren.decode_node: annos not found hami.io/node-biren-register");
  }
  for (const char* bad : {":", ""}) {
    NodeFixture n("node-3");
    n.annotation(kRegister, bad);
    try {
      static_cast<void>(dut.plugin().decode_node(n.view()));
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const CallError& e) {
      EXPECT_EQ(e.status(), HAMI_INVALID_ARGUMENT) << bad;
    }
  }
  NodeFixture empty("node-4");
  empty.annotation(kRegister, "[]");
  try {
    static_cast<void>(dut.plugin().decode_node(empty.view()));
    FAIL();
  } catch (const CallError& e) {
    EXPECT_EQ(std::string(e.what()), "biren.decode_node: no gpu found on node");
  }
}

TEST(BirenNode, RawDeviceTypesStayVisible) {
  // HAMi §3.9a: a raw-device registration names the card, e.g. "BR106M";
  // HAMi's type filter then never offers it to a Biren request.
  const DeviceUnderTest dut("biren");
  NodeFixture node("node-1");
  node.annotation(kRegister,
                  R"([{"id":"card-0","count":1,"devmem":24576,"type":"BR106M","health":true},
                      {"id":"card-1","count":1,"devmem":65024,"type":"biren-br104","health":true}])");
  const NodeInventory inv = dut.plugin().decode_node(node.view());
  ASSERT_EQ(inv.devices.size(), 2u);
  EXPECT_EQ(inv.devices[0].type, "Biren BR106M");
  EXPECT_EQ(inv.devices[1].type, "biren-br104");
  EXPECT_EQ(inv.devices[0].memory_mib, 24576);
}

TEST(BirenNode, CheckHealthAndCleanup) {
  const DeviceUnderTest dut("biren");
  NodeFixture expired("node-1");
  expired.annotation(kRegister, R"([{"id":"7-0","count":1,"type":"Biren","health":true}])");
  expired.annotation(kHandshake, "Requesting_2025-01-07 00:00:00");
  HealthResult r = dut.plugin().node_health(expired.view(), 1900000000);
  EXPECT_FALSE(r.healthy);
  EXPECT_FALSE(r.needs_update);
  NodeFixture unknown("node-2");
  unknown.annotation(kRegister, R"([{"id":"7-0","count":1,"type":"Biren","health":true}])");
  unknown.annotation(kHandshake, "Unknown");
  r = dut.plugin().node_health(unknown.view(), 1900000000);
  EXPECT_TRUE(r.healthy);
  EXPECT_TRUE(r.needs_update);
  ASSERT_EQ(r.writes.size(), 1u);
  EXPECT_EQ(r.writes[0].key, kHandshake);
  const std::vector<AnnotationWrite> writes = dut.plugin().node_cleanup(unknown.view());
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes[0].key, kHandshake);
  EXPECT_FALSE(writes[0].value.has_value());
}

TEST(BirenAllocation, PatchAnnotations) {
  const DeviceUnderTest dut("biren");
  const std::string id = "test1";
  const std::string type = "Biren";
  hami_alloc_device dev{};
  dev.struct_size = sizeof dev;
  dev.id = hami_str{id.data(), id.size()};
  dev.type = hami_str{type.data(), type.size()};
  dev.memory_mib = 2048;
  dev.cores = 1;
  const hami_container_alloc container{&dev, 1};
  EXPECT_EQ(dut.plugin().encode_allocation(std::span(&container, 1)), "test1,Biren,2048,1:;");
  EXPECT_EQ(dut.plugin().encode_allocation({}), "");
}

TEST(BirenFit, TestDevicesFit) {
  const DeviceUnderTest dut("biren");
  std::vector<StandardFitCase> cases;
  // HAMi slice order; the runner tries them from the end.
  cases.push_back({"T1 fit success",
                   {biren_card("dev-0"), biren_card("dev-1")},
                   make_request(1, 0, 0, 0),
                   {},
                   0,
                   true,
                   {"dev-1"},
                   ""});
  cases.push_back({"T5 use uuid mismatch",
                   {biren_card("dev-1")},
                   make_request(1, 0, 0, 0),
                   {{kUseUuid, "dev-0"}},
                   0,
                   false,
                   {},
                   "1/1 CardUuidMismatch"});
  cases.push_back({"T6 nouse uuid match",
                   {biren_card("dev-0")},
                   make_request(1, 0, 0, 0),
                   {{kNoUseUuid, "dev-0"}},
                   0,
                   false,
                   {},
                   "1/1 CardUuidMismatch"});
  cases.push_back({"T7 card overused",
                   {biren_card("dev-0", 1)},
                   make_request(1, 0, 0, 0),
                   {},
                   0,
                   false,
                   {},
                   "1/1 CardTimeSlicingExhausted"});
  cases.push_back({"T11 allocated cards insufficient",
                   {biren_card("dev-0")},
                   make_request(2, 0, 0, 0),
                   {},
                   0,
                   false,
                   {},
                   "1/1 AllocatedCardsInsufficientRequest"});
  cases.push_back({"T13 mutex rejects a used device",
                   {biren_card("dev-0", 1, 2)},
                   make_request(1, 0, 0, 0),
                   {},
                   HAMI_FIT_MUTEX,
                   false,
                   {},
                   "1/1 ExclusiveDeviceAllocateConflict"});
  cases.push_back({"T14 partial allocation",
                   {standard_card("Biren", "dev-0", 1280), standard_card("Biren", "dev-1", 1280)},
                   make_request(3, 512, 0, 20),
                   {},
                   0,
                   false,
                   {},
                   "2/2 AllocatedCardsInsufficientRequest"});
  DeviceState sick = biren_card("dev-0");
  sick.healthy = false;
  cases.push_back(
      {"T15 not healthy", {sick}, make_request(1, 0, 0, 0), {}, 0, false, {}, "1/1 CardNotHealth"});
  for (const StandardFitCase& c : cases)
    expect_standard_fit(dut, c);
}

TEST(BirenFit, NoMemoryOrCoreChecks) {
  // Steps 1–5 only: a full card by memory and cores is still shared while
  // its count allows, and picks take no memory and the request's cores.
  const DeviceUnderTest dut("biren");
  DeviceState full = standard_card("Biren", "dev-0", 1024, 3, 100);
  full.used_memory_mib = 1024;
  const FitOutcome o = run_fit(dut, {full}, make_request(1, 512, 0, 20));
  ASSERT_TRUE(o.result.fits);
  EXPECT_EQ(o.types, std::vector<std::string>{"Biren"});
  EXPECT_EQ(o.picks[0].memory_mib, 0);
  EXPECT_EQ(o.picks[0].cores, 20);
}

// Biren shares by count only (reference §3.5): the split count and the
// mutex policy at their boundaries.
TEST(BirenCapacity, SplitCountAndMutexAtTheirBoundaries) {
  const DeviceUnderTest dut("biren");
  for (const BoundaryCase& c : slot_boundary_cases("Biren"))
    expect_boundary(dut, c);
}

}  // namespace
}  // namespace hami::testing
