// vastai.so through its ABI: HAMi reference §11 and the cases of
// pkg/device/vastai/device_test.go (Test_MutateAdmission, Test_GetNodeDevices,
// Test_CheckHealth, Test_PatchAnnotations, Test_GenerateResourceRequests,
// TestDevices_Fit without die mode) with HAMi's expected values, plus the
// fix for §11.9c / X12 (count range). Die mode, TestComputeBestCombination
// and the node score are in vastai_die_test.cpp.
#include <gtest/gtest.h>

#include "device_under_test.hpp"
#include "fit_run.hpp"
#include "k8s_views.hpp"
#include "request_run.hpp"
#include "share_fit_boundaries.hpp"
#include "standard_fit_table.hpp"

namespace hami::testing {
namespace {

constexpr const char* kCount = "vastaitech.com/va";
constexpr const char* kRegister = "hami.io/node-va-register";
constexpr const char* kHandshake = "hami.io/node-handshake-va";
constexpr const char* kUseUuid = "vastaitech.com/use-gpuuuid";
constexpr const char* kNoUseUuid = "vastaitech.com/nouse-gpuuuid";

// TestDevices_Fit's device: Count 1, no memory, no cores, type Vastai.
DeviceState vastai_card(std::string id, std::int32_t used = 0, std::int32_t count = 1) {
  DeviceState d;
  d.id = std::move(id);
  d.type = "Vastai";
  d.count = count;
  d.memory_mib = 0;
  d.cores = 0;
  d.used = used;
  return d;
}

std::string decode_error(const DeviceUnderTest& dut, NodeFixture& node, hami_status& status) {
  try {
    static_cast<void>(dut.plugin().decode_node(node.view()));
  } catch (const CallError& e) {
    status = e.status();
    return e.what();
  }
  status = HAMI_OK;
  return "";
}

TEST(VastaiDescribe, NamesAndAnnotationsAsHami) {
  const DeviceUnderTest dut("vastai");
  const DeviceDescription& d = dut.plugin().description();
  EXPECT_EQ(d.vendor, "Vastai");
  EXPECT_EQ(d.count_resource, "vastaitech.com/va");
  EXPECT_EQ(d.memory_resource, "");
  EXPECT_EQ(d.memory_percent_resource, "");
  EXPECT_EQ(d.cores_resource, "");
  EXPECT_EQ(d.register_annotation, "hami.io/node-va-register");
  EXPECT_EQ(d.handshake_annotation, "hami.io/node-handshake-va");
  EXPECT_EQ(d.to_allocate_annotation, "hami.io/Vastai-devices-to-allocate");
  EXPECT_EQ(d.allocated_annotation, "hami.io/Vastai-devices-allocated");
  EXPECT_EQ(d.memory_factor, 1);
  EXPECT_TRUE(d.takes_node_lock()) << "HAMi takes the shared hami.io/mutex.lock";
  EXPECT_FALSE(d.multi_pick());
  EXPECT_TRUE(dut.plugin().scores_placements());
  const DeviceUnderTest renamed("vastai", R"({"resourceCountName": "vastaitech.com/vva"})");
  EXPECT_EQ(renamed.plugin().description().count_resource, "vastaitech.com/vva");
  const DeviceUnderTest nulls("vastai", R"({"resourceCountName": null, "customresources": null})");
  EXPECT_EQ(nulls.plugin().description().count_resource, "vastaitech.com/va");
  EXPECT_THROW(DeviceUnderTest("vastai", R"({"resourceCountName": 1})"), host::PluginLoadError);
}

TEST(VastaiAdmission, MutateAdmission) {
  const DeviceUnderTest dut("vastai");
  PodFixture pod;
  pod.container({"c1", false, {{kCount, "1"}}, {}, {}});
  pod.container({"c2", false, {}, {{kCount, "1"}}, {}});
  pod.container({"c3", false, {{"nvidia.com/gpu", "1"}}, {}, {}});
  const ContainerMutation m = dut.plugin().mutate_container(pod.view(), 0);
  EXPECT_TRUE(m.uses_device);
  EXPECT_TRUE(m.limits.empty());
  EXPECT_TRUE(m.env.empty());
  EXPECT_TRUE(m.requests.empty());
  EXPECT_TRUE(m.pod_annotations.empty());
  EXPECT_FALSE(m.runtime_class.has_value());
  EXPECT_FALSE(dut.plugin().mutate_container(pod.view(), 1).uses_device) << "requests only";
  EXPECT_FALSE(dut.plugin().mutate_container(pod.view(), 2).uses_device);
}

TEST(VastaiRequests, GenerateResourceRequests) {
  const DeviceUnderTest dut("vastai");
  expect_request(request(dut, {}).request, 0, 0, 0, 0);
  for (const auto& [limits, requests] : std::vector<std::pair<Pairs, Pairs>>{
           {{{kCount, "1"}}, {{kCount, "1"}}}, {{{kCount, "1"}}, {}}, {{}, {{kCount, "1"}}}}) {
    expect_request(request(dut, limits, requests).request, 1, 0, 100, 0);
  }
  expect_request(request(dut, {{kCount, "3"}}, {{kCount, "1"}}).request, 3, 0, 100, 0);
}

TEST(VastaiRequests, CountOutOfRangeIsUnusableFixesX12) {
  // HAMi §11.9c / X12: HAMi wraps 2200000000 to a negative int32 and drops
  // it silently; 4294967297 would wrap to 1.
  const DeviceUnderTest dut("vastai");
  for (const char* bad : {"2200000000", "4294967297", "-1", "1.5", "x"}) {
    const RequestResult r = request(dut, {{kCount, bad}});
    EXPECT_EQ(r.request.count, 0) << bad;
    EXPECT_EQ(r.warning, std::string("invalid vastaitech.com/va value ") + bad +
                             " in container c1: must be an integer between 1 and 2147483647");
  }
  const RequestResult zero = request(dut, {{kCount, "0"}});
  EXPECT_EQ(zero.request.count, 0);
  EXPECT_EQ(zero.warning, "");
}

TEST(VastaiNode, GetNodeDevices) {
  const DeviceUnderTest dut("vastai");
  NodeFixture node("node-1");
  node.annotation(
      kRegister,
      R"([{"id":"7-0","count":1,"devmem":32768,"type":"Vastai","health":true,"devicepairscore":{}}])");
  const NodeInventory inv = dut.plugin().decode_node(node.view());
  ASSERT_EQ(inv.devices.size(), 1u);
  const DeviceRecord& d = inv.devices[0];
  EXPECT_EQ(d.id, "7-0");
  EXPECT_EQ(d.count, 1);
  EXPECT_EQ(d.memory_mib, 32768);
  EXPECT_EQ(d.cores, 100) << "HAMi forces Devcore to 100";
  EXPECT_EQ(d.type, "Vastai");
  EXPECT_EQ(d.numa, 0);
  EXPECT_EQ(d.index, 0u);
  EXPECT_EQ(d.mode, "");
  EXPECT_EQ(d.flags, HAMI_DEVICE_HEALTHY);
  EXPECT_EQ(d.attributes, "") << "no custominfo";
  EXPECT_TRUE(inv.pair_scores.empty());
}

TEST(VastaiNode, GetNodeDevicesErrors) {
  const DeviceUnderTest dut("vastai");
  hami_status status = HAMI_OK;
  NodeFixture bare("node-1");
  EXPECT_EQ(decode_error(dut, bare, status),
            "vastai.decode_node: annos not found hami.io/node-va-register");
  EXPECT_EQ(status, HAMI_NOT_FOUND);
  EXPECT_FALSE(dut.plugin().decode_node_if_registered(bare.view()).has_value());
  for (const char* bad :
       {":", "", "{}", R"([{"id":"a","count":"1"}])", R"([{"id":"a","custominfo":"die"}])"}) {
    NodeFixture n("node-2");
    n.annotation(kRegister, bad);
    EXPECT_NE(decode_error(dut, n, status), "") << "accepted '" << bad << "'";
    EXPECT_EQ(status, HAMI_INVALID_ARGUMENT) << bad;
  }
  for (const char* none : {"[]", "null"}) {
    NodeFixture empty("node-3");
    empty.annotation(kRegister, none);
    EXPECT_EQ(decode_error(dut, empty, status), "vastai.decode_node: no gpu found on node");
    EXPECT_EQ(status, HAMI_INVALID_ARGUMENT);
  }
}

TEST(VastaiNode, DieCustomInfoReachesAttributes) {
  // §11.3's example registration, plus the shapes HAMi's type assertions
  // tell apart: a string, any other value, absent.
  const DeviceUnderTest dut("vastai");
  NodeFixture node("node-1");
  node.annotation(
      kRegister,
      R"([{"id":"va0-die0","count":1,"devmem":16384,"type":"Vastai","health":true,"custominfo":{"DeviceStrategy":"die","AIC":"0"}},)"
      R"({"id":"va0-die1","index":1,"count":1,"devmem":16384,"type":"Vastai","health":true,"custominfo":{"DeviceStrategy":"die","AIC":"0"}},)"
      R"({"id":"card-2","index":2,"count":4,"type":"Vastai","health":true,"custominfo":{"DeviceStrategy":"card"}},)"
      R"({"id":"odd-3","index":3,"count":1,"type":"Vastai","custominfo":{"AIC":7,"DeviceStrategy":null,"Other":"x"}},)"
      R"({"id":"twice-4","index":4,"count":1,"type":"Vastai","custominfo":{"AIC":"1","AIC":"a:b","DeviceStrategy":{"k":1}}},)"
      R"({"id":"empty-5","index":5,"count":1,"type":"Vastai","custominfo":{}},)"
      R"({"id":"null-6","index":6,"count":1,"type":"Vastai","custominfo":null}])");
  const NodeInventory inv = dut.plugin().decode_node(node.view());
  ASSERT_EQ(inv.devices.size(), 7u);
  EXPECT_EQ(inv.devices[0].attributes, "3:die1:0");
  EXPECT_EQ(inv.devices[1].attributes, "3:die1:0");
  EXPECT_EQ(inv.devices[1].index, 1u);
  EXPECT_EQ(inv.devices[2].attributes, "4:card-");
  EXPECT_EQ(inv.devices[3].attributes, "**");
  EXPECT_EQ(inv.devices[3].flags, 0u) << "health absent is false";
  EXPECT_EQ(inv.devices[4].attributes, "*3:a:b") << "a repeated key: the last wins, as in Go";
  EXPECT_EQ(inv.devices[5].attributes, "");
  EXPECT_EQ(inv.devices[6].attributes, "");
}

TEST(VastaiNode, CordonedDevice) {
  const DeviceUnderTest dut("vastai");
  NodeFixture node("node-1");
  node.annotation(kRegister, R"([{"id":"a","count":1,"type":"Vastai","health":true},)"
                             R"({"id":"b","count":1,"type":"Vastai","health":true}])");
  node.annotation("hami.io/device-cordon", "b");
  const NodeInventory inv = dut.plugin().decode_node(node.view());
  ASSERT_EQ(inv.devices.size(), 2u);
  EXPECT_EQ(inv.devices[0].flags, HAMI_DEVICE_HEALTHY);
  EXPECT_EQ(inv.devices[1].flags, HAMI_DEVICE_HEALTHY | HAMI_DEVICE_CORDONED);
}

TEST(VastaiNode, CheckHealthAndCleanup) {
  const DeviceUnderTest dut("vastai");
  const char* reg = R"([{"id":"7-0","count":1,"type":"Vastai","health":true}])";
  NodeFixture expired("node-1");
  expired.annotation(kRegister, reg);
  expired.annotation(kHandshake, "Requesting_2025-01-07 00:00:00");
  HealthResult r = dut.plugin().node_health(expired.view(), 1900000000);
  EXPECT_FALSE(r.healthy);
  EXPECT_FALSE(r.needs_update);

  NodeFixture unknown("node-2");
  unknown.annotation(kRegister, reg);
  unknown.annotation(kHandshake, "Unknown");
  r = dut.plugin().node_health(unknown.view(), 1900000000);
  EXPECT_TRUE(r.healthy);
  EXPECT_TRUE(r.needs_update);
  ASSERT_EQ(r.writes.size(), 1u);
  EXPECT_EQ(r.writes[0].key, kHandshake);
  ASSERT_TRUE(r.writes[0].value.has_value());
  EXPECT_EQ(r.writes[0].value->rfind("Requesting_", 0), 0u);

  // Expired, but the node plugin reports devices: healthy again.
  NodeFixture reporting("node-3");
  reporting.annotation(kRegister, reg);
  reporting.annotation(kHandshake, "Requesting_2025-01-07 00:00:00");
  reporting.allocatable(kCount, "2");
  r = dut.plugin().node_health(reporting.view(), 1900000000);
  EXPECT_TRUE(r.healthy);

  const std::vector<AnnotationWrite> writes = dut.plugin().node_cleanup(unknown.view());
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes[0].key, kHandshake);
  EXPECT_FALSE(writes[0].value.has_value());
}

TEST(VastaiAllocation, PatchAnnotations) {
  const DeviceUnderTest dut("vastai");
  const std::string id = "test1";
  const std::string type = "Vastai";
  hami_alloc_device dev{};
  dev.struct_size = sizeof dev;
  dev.id = hami_str{id.data(), id.size()};
  dev.type = hami_str{type.data(), type.size()};
  dev.memory_mib = 2048;
  dev.cores = 1;
  const hami_container_alloc container{&dev, 1};
  EXPECT_EQ(dut.plugin().encode_allocation(std::span(&container, 1)), "test1,Vastai,2048,1:;");
  EXPECT_EQ(dut.plugin().encode_allocation({}), "");
}

TEST(VastaiAllocation, DecodesHamiDieAllocation) {
  // §11.6's example value.
  const DeviceUnderTest dut("vastai");
  const PodAllocation a =
      dut.plugin().decode_allocation("va0-die1,Vastai,0,0:va0-die0,Vastai,0,0:;");
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(a[0].size(), 2u);
  EXPECT_EQ(a[0][0].id, "va0-die1");
  EXPECT_EQ(a[0][1].id, "va0-die0");
  EXPECT_EQ(a[0][1].type, "Vastai");
  EXPECT_THROW(static_cast<void>(dut.plugin().decode_allocation("a,Vastai,x,0:;")), CallError);
}

TEST(VastaiFit, TestDevicesFit) {
  const DeviceUnderTest dut("vastai");
  std::vector<StandardFitCase> cases;
  // HAMi slice order; the runner tries them from the end.
  cases.push_back({"T1 fit success",
                   {vastai_card("dev-0"), vastai_card("dev-1")},
                   make_request(1, 0, 0, 0),
                   {},
                   0,
                   true,
                   {"dev-1"},
                   ""});
  cases.push_back({"T5 use uuid mismatch",
                   {vastai_card("dev-1")},
                   make_request(1, 0, 0, 0),
                   {{kUseUuid, "dev-0"}},
                   0,
                   false,
                   {},
                   "1/1 CardUuidMismatch"});
  cases.push_back({"T6 nouse uuid match",
                   {vastai_card("dev-0")},
                   make_request(1, 0, 0, 0),
                   {{kNoUseUuid, "dev-0"}},
                   0,
                   false,
                   {},
                   "1/1 CardUuidMismatch"});
  cases.push_back({"T7 card overused",
                   {vastai_card("dev-0", 1)},
                   make_request(1, 0, 0, 0),
                   {},
                   0,
                   false,
                   {},
                   "1/1 CardTimeSlicingExhausted"});
  cases.push_back({"T11 allocated cards insufficient",
                   {vastai_card("dev-0")},
                   make_request(2, 0, 0, 0),
                   {},
                   0,
                   false,
                   {},
                   "1/1 AllocatedCardsInsufficientRequest"});
  cases.push_back({"T13 mutex rejects a used device",
                   {vastai_card("dev-0", 1, 2)},
                   make_request(1, 0, 0, 0),
                   {},
                   HAMI_FIT_MUTEX,
                   false,
                   {},
                   "1/1 ExclusiveDeviceAllocateConflict"});
  cases.push_back({"T14 partial allocation",
                   {standard_card("Vastai", "dev-0", 1280), standard_card("Vastai", "dev-1", 1280)},
                   make_request(3, 512, 0, 20),
                   {},
                   0,
                   false,
                   {},
                   "2/2 AllocatedCardsInsufficientRequest"});
  DeviceState sick = vastai_card("dev-0");
  sick.healthy = false;
  cases.push_back(
      {"T15 not healthy", {sick}, make_request(1, 0, 0, 0), {}, 0, false, {}, "1/1 CardNotHealth"});
  for (const StandardFitCase& c : cases)
    expect_standard_fit(dut, c);
}

TEST(VastaiFit, NoMemoryOrCoreChecks) {
  // Steps 1–5 only: a card full by memory and cores is still shared while
  // its count allows; picks take no memory and the request's cores.
  const DeviceUnderTest dut("vastai");
  DeviceState full = standard_card("Vastai", "dev-0", 1024, 3, 100);
  full.used_memory_mib = 1024;
  const FitOutcome o = run_fit(dut, {full}, make_request(1, 512, 0, 0));
  ASSERT_TRUE(o.result.fits);
  EXPECT_EQ(o.types, std::vector<std::string>{"Vastai"});
  EXPECT_EQ(o.picks[0].memory_mib, 0);
  EXPECT_EQ(o.picks[0].cores, 0);
}

TEST(VastaiFit, CardModeStopsAtTheCountAndReasonsCoverEveryDevice) {
  // Outside die mode the walk ends as soon as the count is picked (S-FIT):
  // here dev-3, dev-1 (try order), skipping the cordoned and the used one.
  const DeviceUnderTest dut("vastai");
  DeviceState cordoned = vastai_card("dev-2");
  cordoned.cordoned = true;
  const FitOutcome o =
      run_fit(dut, {vastai_card("dev-3"), cordoned, vastai_card("dev-1"), vastai_card("dev-0")},
              make_request(2, 0, 100, 0));
  ASSERT_TRUE(o.result.fits);
  EXPECT_EQ(o.ids, (std::vector<std::string>{"dev-3", "dev-1"}));

  DeviceState used = vastai_card("dev-1", 1, 2);
  const FitOutcome f = run_fit(dut, {cordoned, used, vastai_card("dev-0")},
                               make_request(3, 0, 100, 0), {}, HAMI_FIT_MUTEX);
  EXPECT_FALSE(f.result.fits);
  EXPECT_EQ(f.result.reason,
            "1/3 AllocatedCardsInsufficientRequest, 1/3 CardCordoned, "
            "1/3 ExclusiveDeviceAllocateConflict");
}

TEST(VastaiFit, ZeroCountFitsWithoutPicks) {
  const DeviceUnderTest dut("vastai");
  const FitOutcome o = run_fit(dut, {vastai_card("dev-0")}, make_request(0, 0, 0, 0));
  EXPECT_TRUE(o.result.fits);
  EXPECT_TRUE(o.ids.empty());
}

// Outside die mode Vastai shares by count only (reference §11.5): the split
// count and the mutex policy at their boundaries.
TEST(VastaiCapacity, SplitCountAndMutexAtTheirBoundaries) {
  const DeviceUnderTest dut("vastai");
  for (const BoundaryCase& c : slot_boundary_cases("Vastai"))
    expect_boundary(dut, c);
}

}  // namespace
}  // namespace hami::testing
