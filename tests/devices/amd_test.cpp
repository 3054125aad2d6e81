// amd.so through its ABI: HAMi §2.4, §3.2, §3.3, §5.1, §5.6 and the cases of
// pkg/device/amd/device_test.go (Test_MutateAdmission, Test_GetNodeDevices,
// Test_GenerateResourceRequests, TestDevices_Fit, TestCheckAMDType), plus the
// fix for HAMi bug 7.7#7.
#include <gtest/gtest.h>

#include "device_under_test.hpp"
#include "fit_run.hpp"
#include "k8s_views.hpp"

namespace hami::testing {
namespace {

ContainerMutation mutate(const DeviceUnderTest& dut, Pairs limits, Pairs requests = {}) {
  PodFixture pod;
  pod.container({"c1", false, std::move(limits), std::move(requests), {}});
  return dut.plugin().mutate_container(pod.view(), 0);
}

hami_device_request request(const DeviceUnderTest& dut, Pairs limits, Pairs requests = {}) {
  PodFixture pod;
  pod.container({"c1", false, std::move(limits), std::move(requests), {}});
  return dut.plugin().container_request(pod.view(), 0).request;
}

TEST(AmdDescribe, CoresCountComputeUnits) {
  const DeviceUnderTest dut("amd");
  EXPECT_EQ(dut.plugin().description().cores_unit, HAMI_CORES_COUNT);
  EXPECT_EQ(dut.plugin().description().vendor, "AMD");
}

TEST(AmdAdmission, MutateAdmission) {
  const DeviceUnderTest dut("amd");
  EXPECT_TRUE(mutate(dut, {{"amd.com/gpu", "2"}}).uses_device);
  EXPECT_TRUE(mutate(dut, {{"amd.com/gpumem", "1024"}}).uses_device);
  EXPECT_TRUE(mutate(dut, {{"amd.com/gpucores", "50"}}).uses_device);
  EXPECT_FALSE(mutate(dut, {}, {{"amd.com/gpu", "1"}}).uses_device) << "requests only";
  EXPECT_TRUE(mutate(dut, {{"amd.com/gpu", "1"}, {"amd.com/gpumem", "1024"}}).uses_device);
  EXPECT_FALSE(mutate(dut, {}).uses_device);
  // Nothing is injected.
  const ContainerMutation m = mutate(dut, {{"amd.com/gpu", "1"}});
  EXPECT_TRUE(m.limits.empty());
  EXPECT_TRUE(m.env.empty());
  EXPECT_FALSE(m.runtime_class.has_value());
}

TEST(AmdAdmission, CorePercentageMustBe1To100) {
  const DeviceUnderTest dut("amd");
  for (const char* bad : {"0", "101", "-1", "50m", "99.1"}) {
    for (const bool with_count : {true, false}) {
      Pairs limits = {{"amd.com/gpucores", bad}};
      if (with_count)
        limits.emplace_back("amd.com/gpu", "1");
      try {
        mutate(dut, limits);
        ADD_FAILURE() << "accepted " << bad;
      } catch (const CallError& e) {
        EXPECT_EQ(e.status(), HAMI_INVALID_ARGUMENT);
        EXPECT_EQ(std::string(e.what()),
                  "amd.mutate_container: amd.com/gpucores must be an integer percentage between 1 "
                  "and 100");
      }
    }
  }
  EXPECT_NO_THROW(mutate(dut, {{"amd.com/gpu", "1"}, {"amd.com/gpucores", "1"}}));
  EXPECT_NO_THROW(mutate(dut, {{"amd.com/gpu", "1"}, {"amd.com/gpucores", "100"}}));
}

TEST(AmdRequests, LimitsOnlyWithDefaults) {
  const DeviceUnderTest dut("amd");
  hami_device_request r =
      request(dut, {{"amd.com/gpu", "2"}, {"amd.com/gpumem", "4096"}, {"amd.com/gpucores", "33"}},
              {{"amd.com/gpu", "99"}, {"amd.com/gpumem", "99"}, {"amd.com/gpucores", "99"}});
  EXPECT_EQ(r.count, 2);
  EXPECT_EQ(r.memory_mib, 4096);
  EXPECT_EQ(r.memory_percent, 0);
  EXPECT_EQ(r.cores, 33);
  r = request(dut, {{"amd.com/gpu", "1"}, {"amd.com/gpumem", "4096"}});
  EXPECT_EQ(r.cores, 100) << "omitted cores default to 100 percent";
  r = request(dut, {}, {{"amd.com/gpu", "1"}});
  EXPECT_EQ(r.count, 0) << "requests are ignored";
  r = request(dut, {{"amd.com/gpu", "0"}});
  EXPECT_EQ(r.count, 0) << "zero count is device-less, not invalid";
}

TEST(AmdRequests, MemoryOrCoresOnlyContainersGetOneGpu) {
  // HAMi 7.7#7 (issue #2679): admitted as AMD, but no request came out.
  const DeviceUnderTest dut("amd");
  hami_device_request r = request(dut, {{"amd.com/gpumem", "4096"}, {"amd.com/gpucores", "33"}});
  EXPECT_EQ(r.count, 1);
  EXPECT_EQ(r.memory_mib, 4096);
  EXPECT_EQ(r.cores, 33);
  r = request(dut, {{"amd.com/gpumem", "8192"}});
  EXPECT_EQ(r.count, 1);
  EXPECT_EQ(r.cores, 100);
  r = request(dut, {{"amd.com/gpucores", "25"}});
  EXPECT_EQ(r.count, 1);
  EXPECT_EQ(r.memory_mib, 0);
}

TEST(AmdRequests, OutOfRangeValuesAreErrors) {
  const DeviceUnderTest dut("amd");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"amd.com/gpu", "2147483648"}, {"amd.com/gpumem", "-1"},  {"amd.com/gpumem", "2147483648"},
      {"amd.com/gpumem", "16Gi"},    {"amd.com/gpucores", "0"}, {"amd.com/gpucores", "101"},
      {"amd.com/gpucores", "50m"},   {"amd.com/gpu", "1.5"}};
  for (const auto& [res, value] : cases) {
    Pairs limits = {{"amd.com/gpu", "1"}};
    if (res == "amd.com/gpu")
      limits.clear();
    limits.emplace_back(res, value);
    PodFixture pod;
    pod.container({"c1", false, limits, {}, {}});
    const RequestResult r = dut.plugin().container_request(pod.view(), 0);
    EXPECT_EQ(r.request.count, 0) << res << "=" << value;
    EXPECT_FALSE(r.warning.empty()) << res << "=" << value;
  }
  PodFixture pod;
  pod.container({"c1", false, {{"amd.com/gpu", "1"}, {"amd.com/gpumem", "16Gi"}}, {}, {}});
  EXPECT_EQ(dut.plugin().container_request(pod.view(), 0).warning,
            "invalid amd.com/gpumem value 16Gi in container c1: must be an integer number of MiB "
            "between 0 and 2147483647");
}

TEST(AmdNode, DecodesRegistrationAndReportsMissingOne) {
  const DeviceUnderTest dut("amd");
  NodeFixture node("node-1");
  node.annotation(
      "hami.io/node-amd-register",
      R"([{"id":"GPU-0","index":0,"count":1,"devmem":8192,"devcore":100,"type":"amd","numa":0,"health":true},
                      {"id":"amd-1","count":4,"devmem":196608,"devcore":304,"type":"AMD Instinct MI300X VF","mode":"hami-core","health":true}])");
  node.annotation("hami.io/device-cordon", "amd-1");
  const NodeInventory inv = dut.plugin().decode_node(node.view());
  ASSERT_EQ(inv.devices.size(), 2u);
  EXPECT_EQ(inv.devices[0].id, "GPU-0");
  EXPECT_EQ(inv.devices[0].type, "amd");
  EXPECT_EQ(inv.devices[1].cores, 304);
  EXPECT_EQ(inv.devices[1].memory_mib, 196608);
  EXPECT_EQ(inv.devices[1].flags, HAMI_DEVICE_HEALTHY | HAMI_DEVICE_CORDONED);

  NodeFixture bare("node-2");
  try {
    static_cast<void>(dut.plugin().decode_node(bare.view()));
    FAIL();
  } catch (const CallError& e) {
    EXPECT_EQ(e.status(), HAMI_NOT_FOUND);
    EXPECT_NE(std::string(e.what()).find("annotation"), std::string::npos);
  }
  // AMD registrations are JSON only.
  NodeFixture legacy("node-3");
  legacy.annotation("hami.io/node-amd-register", "GPU-0,1,8192,100,amd,0,true:");
  EXPECT_THROW(static_cast<void>(dut.plugin().decode_node(legacy.view())), CallError);
}

TEST(AmdNode, HealthFollowsCapacityAndCleanupDropsTheRegistration) {
  const DeviceUnderTest dut("amd");
  NodeFixture with("node-1");
  with.capacity("amd.com/gpu", "8");
  HealthResult r = dut.plugin().node_health(with.view(), 0);
  EXPECT_TRUE(r.healthy);
  EXPECT_TRUE(r.needs_update);
  EXPECT_TRUE(r.writes.empty());
  NodeFixture without("node-2");
  without.capacity("amd.com/gpu", "0");
  r = dut.plugin().node_health(without.view(), 0);
  EXPECT_FALSE(r.healthy);
  EXPECT_FALSE(r.needs_update);
  const std::vector<AnnotationWrite> writes = dut.plugin().node_cleanup(without.view());
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes[0].key, "hami.io/node-amd-register");
  EXPECT_FALSE(writes[0].value.has_value());
}

TEST(AmdFit, TwoWholeCardsUseAllMemoryAndCus) {
  const DeviceUnderTest dut("amd");
  // HAMi order dev-0, dev-1 walked from the end: dev-1 first.
  const FitOutcome o =
      run_fit(dut, {amd_card("dev-1", 12, 1000, 100), amd_card("dev-0", 2, 1000, 100)},
              make_request(2, 0, 0, 0));
  ASSERT_TRUE(o.result.fits);
  ASSERT_EQ(o.picks.size(), 2u);
  EXPECT_EQ(o.picks[0].device, 0u);
  EXPECT_EQ(o.picks[1].device, 1u);
  EXPECT_EQ(o.picks[0].memory_mib, 1000);
  EXPECT_EQ(o.picks[0].cores, 100);
}

TEST(AmdFit, CorePercentageBecomesCusPerDevice) {
  const DeviceUnderTest dut("amd");
  FitOutcome o = run_fit(dut, {amd_card("dev-1", 12, 1000, 100), amd_card("dev-0", 2, 1000, 10)},
                         make_request(1, 500, 0, 50));
  ASSERT_TRUE(o.result.fits);
  EXPECT_EQ(o.picks[0].device, 0u);
  EXPECT_EQ(o.picks[0].memory_mib, 500);
  EXPECT_EQ(o.picks[0].cores, 50);
  // floor(304 × 25 / 100) = 76
  o = run_fit(dut, {amd_card("mi300", 4, 196608, 304)}, make_request(1, 16384, 0, 25));
  EXPECT_EQ(o.picks[0].cores, 76);
  // A positive percentage is at least one CU.
  o = run_fit(dut, {amd_card("dev-0", 2, 1000, 64)}, make_request(1, 100, 0, 1));
  EXPECT_EQ(o.picks[0].cores, 1);
  // A partial-memory request without a percentage still takes at least 1 CU.
  o = run_fit(dut, {amd_card("dev-0", 2, 1000, 64)}, make_request(1, 100, 0, 0));
  EXPECT_EQ(o.picks[0].cores, 1);
}

TEST(AmdFit, PicksKeepTheRegisteredProductType) {
  const DeviceUnderTest dut("amd");
  DeviceState d = amd_card("dev-0", 2, 1000, 100);
  d.type = "AMD_Instinct_MI300X_VF";
  const FitOutcome o = run_fit(dut, {d}, make_request(1, 100, 0, 10));
  ASSERT_TRUE(o.result.fits);
  EXPECT_EQ(o.types, std::vector<std::string>{"AMD_Instinct_MI300X_VF"});
}

TEST(AmdFit, FailureReasons) {
  const DeviceUnderTest dut("amd");
  EXPECT_EQ(run_fit(dut, {amd_card("dev-0", 2, 1000, 100, 900)}, make_request(1, 500, 0, 10))
                .result.reason,
            "1/1 CardInsufficientMemory");
  EXPECT_EQ(run_fit(dut, {amd_card("dev-0", 2, 1000, 10, 0, 9)}, make_request(1, 100, 0, 100))
                .result.reason,
            "1/1 CardInsufficientCore");
  EXPECT_EQ(run_fit(dut, {amd_card("dev-1", 2, 1000, 100)}, make_request(1, 100, 0, 10),
                    {{"amd.com/use-gpu-uuid", "dev-0"}})
                .result.reason,
            "1/1 CardUuidMismatch");
  EXPECT_EQ(run_fit(dut, {amd_card("dev-0", 2, 1000, 100)}, make_request(1, 100, 0, 10),
                    {{"amd.com/nouse-gpu-uuid", "dev-0"}})
                .result.reason,
            "1/1 CardUuidMismatch");
  EXPECT_EQ(run_fit(dut, {amd_card("dev-0", 2, 1000, 100, 0, 0, 2)}, make_request(1, 100, 0, 10))
                .result.reason,
            "1/1 CardTimeSlicingExhausted");
  DeviceState sick = amd_card("dev-0", 2, 1000, 100);
  sick.healthy = false;
  EXPECT_EQ(run_fit(dut, {sick}, make_request(1, 100, 0, 10)).result.reason, "1/1 CardNotHealth");
  DeviceState cordoned = amd_card("dev-0", 2, 1000, 100);
  cordoned.cordoned = true;
  EXPECT_EQ(run_fit(dut, {cordoned}, make_request(1, 100, 0, 10)).result.reason,
            "1/1 CardCordoned");
  EXPECT_EQ(run_fit(dut, {amd_card("a", 2, 1000, 100, 0, 0, 1), amd_card("b", 2, 1000, 100)},
                    make_request(2, 100, 0, 10), {}, HAMI_FIT_MUTEX)
                .result.reason,
            "1/2 AllocatedCardsInsufficientRequest, 1/2 ExclusiveDeviceAllocateConflict");
}

TEST(AmdFit, TypeSelectors) {
  const DeviceUnderTest dut("amd");
  const auto fits = [&](Pairs annos) {
    DeviceState d = amd_card("dev-0", 2, 1000, 100);
    d.type = "MI300X";
    return run_fit(dut, {d}, make_request(1, 100, 0, 10), std::move(annos)).result.fits;
  };
  EXPECT_TRUE(fits({}));
  EXPECT_TRUE(fits({{"amd.com/use-gputype", "MI300"}}));
  EXPECT_FALSE(fits({{"amd.com/use-gputype", "MI250"}}));
  EXPECT_FALSE(fits({{"amd.com/nouse-gputype", "MI300"}}));
  EXPECT_TRUE(fits({{"amd.com/nouse-gputype", "MI250"}}));
  EXPECT_TRUE(fits({{"amd.com/nouse-gputype", ""}}));
  EXPECT_TRUE(fits({{"amd.com/use-gputype", "   "}}));
  EXPECT_TRUE(fits({{"amd.com/nouse-gputype", "MI250,"}}));
  EXPECT_FALSE(fits({{"amd.com/use-gputype", ", "}}));
  // NVIDIA's keys do not apply to AMD devices.
  EXPECT_TRUE(fits({{"nvidia.com/use-gputype", "A100"}}));
}

}  // namespace
}  // namespace hami::testing
