// NVIDIA MIG fit through nvidia.so's ABI 1.1 calls (holds, pick data):
// HAMi §5.5 step 13 and the MIG visits, ported from mig_capability_test.go,
// mig_topology_test.go, device_test.go (TestFit_MigPercentageRequest...,
// TestCustomFilterRule_NonMig) and the plugin-level parts of
// pkg/scheduler/mig_allocation_test.go (fitInDevices and isMIGRequest).
//
// Pick data and holds use nvidia.so's reservation text
// "START,SIZE,LEN:PROFILE" (docs/mig.md).
#include <gtest/gtest.h>

#include "mig_plugin.hpp"

namespace hami::testing {
namespace {

constexpr const char* kMode = "nvidia.com/vgpu-mode";

class NvidiaMigFit : public ::testing::Test {
 protected:
  MigFitOutcome run(const std::vector<OfferedDevice>& devices, const hami_device_request& req,
                    Pairs annotations = {}, std::uint32_t flags = 0,
                    const hami_quota_hook* quota = nullptr, bool record_data = true) {
    PodFixture pod;
    for (auto& [k, v] : annotations)
      pod.annotation(std::move(k), std::move(v));
    pod.container({});
    return plugin_.fit(devices, pod, req, flags, quota, record_data);
  }
  OfferedDevice a100(const std::string& id, std::vector<std::string> holds = {}) {
    return offered(plugin_, mig_register_device(id, 7, 40960, a100_mig_profiles()),
                   std::move(holds));
  }
  // HAMi's singleNvidiaGPUNode: GPU-a with only 1g.5gb at `placements`.
  OfferedDevice single_gpu(std::vector<std::pair<std::uint32_t, std::uint32_t>> placements,
                           std::vector<std::string> holds = {}) {
    return offered(plugin_,
                   mig_register_device("GPU-a", 7, 40960, {{"1g.5gb", 5120, 14, 1, placements}}),
                   std::move(holds));
  }

  MigPlugin plugin_;
};

const std::vector<std::string> kThree2g = {"0,2,7:2g.10gb", "2,2,7:2g.10gb", "4,2,7:2g.10gb"};

TEST_F(NvidiaMigFit, TestAddResourceUsageUsesReportedProfileAndPlacement) {
  const MigFitOutcome o = run({a100("GPU-a")}, make_request(1, 10000, 0, 0));
  ASSERT_TRUE(o.fits) << o.reason;
  EXPECT_EQ(o.ids, std::vector<std::string>{"GPU-a"});  // the physical UUID
  EXPECT_EQ(o.picks[0].memory_mib, 10240);              // the 2g profile's memory and cores
  EXPECT_EQ(o.picks[0].cores, 28);
  EXPECT_EQ(std::string(o.picks[0].type.ptr, o.picks[0].type.len), "NVIDIA");
  EXPECT_EQ(o.data, std::vector<std::string>{"0,2,7:2g.10gb"});
}

TEST_F(NvidiaMigFit, TestCustomFilterUsesReportedPlacementCapacity) {
  const MigFitOutcome fourth_2g = run({a100("GPU-a", kThree2g)}, make_request(1, 10000, 0, 0));
  EXPECT_FALSE(fourth_2g.fits);
  EXPECT_EQ(fourth_2g.reason, "1/1 CardMigTopologyInfeasible");
  const MigFitOutcome one_g = run({a100("GPU-a", kThree2g)}, make_request(1, 5000, 0, 0));
  ASSERT_TRUE(one_g.fits) << one_g.reason;
  EXPECT_EQ(one_g.data, std::vector<std::string>{"6,1,6:1g.5gb"});
  EXPECT_EQ(one_g.picks[0].memory_mib, 5120);
  EXPECT_EQ(one_g.picks[0].cores, 14);
}

TEST_F(NvidiaMigFit, TestCustomFilterIgnoresQueuedAllocationsForOtherGPUs) {
  // GPU-b (tried first) has a single 1g placement: the first pick goes
  // there, and it must not consume GPU-a's last free placement.
  const OfferedDevice b =
      offered(plugin_, mig_register_device("GPU-b", 7, 40960, {{"1g.5gb", 5120, 14, 1, {{0, 1}}}}));
  const MigFitOutcome o = run({b, a100("GPU-a", kThree2g)}, make_request(2, 5000, 0, 0));
  ASSERT_TRUE(o.fits) << o.reason;
  EXPECT_EQ(o.ids, (std::vector<std::string>{"GPU-b", "GPU-a"}));
  EXPECT_EQ(o.data, (std::vector<std::string>{"0,1,6:1g.5gb", "6,1,6:1g.5gb"}));
  // Two instances on GPU-a do not fit its single remaining placement.
  const MigFitOutcome two = run({a100("GPU-a", kThree2g)}, make_request(2, 5000, 0, 0));
  EXPECT_FALSE(two.fits);
  EXPECT_EQ(two.reason, "1/1 AllocatedCardsInsufficientRequest, 1/1 CardMigTopologyInfeasible");
}

TEST_F(NvidiaMigFit, TestFitUsesEffectivePercentageMemoryForMigPlacement) {
  OfferedDevice d = a100("GPU-a", kThree2g);
  d.used = 3;
  d.used_memory_mib = 30720;
  // 25 % of 40960 = 10240 MiB: only a 1g placement remains.
  const MigFitOutcome o = run({d}, make_request(1, 0, 25, 0));
  EXPECT_FALSE(o.fits);
  EXPECT_EQ(o.reason, "1/1 CardMigTopologyInfeasible");
}

TEST_F(NvidiaMigFit, TestFit_MigPercentageRequestRejectsUndersizedTemplate) {
  // The only profile offers 1024 MiB, the pod asks 50 % of 8192 = 4096 MiB.
  const OfferedDevice d =
      offered(plugin_, mig_register_device("dev-0", 1, 8192, {{"1g.5gb", 1024, 14, 1, {{0, 1}}}}));
  const MigFitOutcome o = run({d}, make_request(1, 0, 50, 10));
  EXPECT_FALSE(o.fits);
  EXPECT_EQ(o.reason, "1/1 CardMigTopologyInfeasible");
}

TEST_F(NvidiaMigFit, TestSelectMigPlacementUsesBalancedPacking) {
  // 3g.20gb high-start-first (4), 2g.10gb low-start-first (0), then 1g.5gb
  // high-start-first around them (3, 2); each pick becomes a hold.
  std::vector<std::string> holds;
  const std::vector<std::pair<std::int64_t, std::string>> steps = {{20000, "4,4,7:3g.20gb"},
                                                                   {10000, "0,2,7:2g.10gb"},
                                                                   {5000, "3,1,6:1g.5gb"},
                                                                   {5000, "2,1,6:1g.5gb"}};
  for (const auto& [memory, want] : steps) {
    const MigFitOutcome o = run({a100("GPU-a", holds)}, make_request(1, memory, 0, 0));
    ASSERT_TRUE(o.fits) << memory << ": " << o.reason;
    EXPECT_EQ(o.data, std::vector<std::string>{want});
    holds.push_back(o.data[0]);
  }
}

TEST_F(NvidiaMigFit, TestCanPlaceMigProfilesA100) {
  // mig_topology_test.go's geometries, placed one request at a time.
  std::vector<std::string> holds;
  for (const std::int64_t memory : {20000, 10000, 5000, 5000}) {
    const MigFitOutcome o = run({a100("GPU-a", holds)}, make_request(1, memory, 0, 0));
    ASSERT_TRUE(o.fits) << "all-balanced geometry: " << memory << ": " << o.reason;
    holds.push_back(o.data[0]);
  }
  holds = {"4,4,7:3g.20gb"};
  for (const std::int64_t memory : {10000, 5000, 5000}) {
    const MigFitOutcome o = run({a100("GPU-a", holds)}, make_request(1, memory, 0, 0));
    ASSERT_TRUE(o.fits) << "remaining balanced placements: " << memory << ": " << o.reason;
    holds.push_back(o.data[0]);
  }
  const MigFitOutcome two_3g =
      run({a100("GPU-a", {"0,4,7:3g.20gb", "4,4,7:3g.20gb"})}, make_request(1, 5000, 0, 0));
  EXPECT_EQ(two_3g.reason, "1/1 CardMigTopologyInfeasible");
  const MigFitOutcome fourth_2g = run({a100("GPU-a", kThree2g)}, make_request(1, 10000, 0, 0));
  EXPECT_EQ(fourth_2g.reason, "1/1 CardMigTopologyInfeasible");
}

TEST_F(NvidiaMigFit, TheSmallestProfileCoveringTheMemoryAtItsBoundary) {
  // 1g.5gb offers 5120 MiB: exactly that takes it, one MiB more the 2g.10gb.
  const MigFitOutcome exact = run({a100("GPU-a")}, make_request(1, 5120, 0, 0));
  ASSERT_TRUE(exact.fits) << exact.reason;
  EXPECT_EQ(exact.data, std::vector<std::string>{"6,1,6:1g.5gb"});
  EXPECT_EQ(exact.picks[0].memory_mib, 5120);
  const MigFitOutcome over = run({a100("GPU-a")}, make_request(1, 5121, 0, 0));
  ASSERT_TRUE(over.fits) << over.reason;
  EXPECT_EQ(over.data, std::vector<std::string>{"0,2,7:2g.10gb"});
  EXPECT_EQ(over.picks[0].memory_mib, 10240);
  // The largest profile, 3g.20gb: 20480 MiB fit it, 20481 no profile.
  const MigFitOutcome largest = run({a100("GPU-a")}, make_request(1, 20480, 0, 0));
  ASSERT_TRUE(largest.fits) << largest.reason;
  EXPECT_EQ(largest.picks[0].memory_mib, 20480);
  EXPECT_EQ(run({a100("GPU-a")}, make_request(1, 20481, 0, 0)).reason,
            "1/1 CardMigTopologyInfeasible");
}

TEST_F(NvidiaMigFit, ProfilesAreTriedByMemoryThenSliceCount) {
  // Equal memory: fewer slices first, whatever the registration order.
  const OfferedDevice tie = offered(
      plugin_, mig_register_device(
                   "GPU-a", 7, 40960,
                   {{"2g.10gb", 10240, 28, 2, {{0, 2}}}, {"1g.10gb", 10240, 14, 1, {{6, 1}}}}));
  const MigFitOutcome o = run({tie}, make_request(1, 1000, 0, 0));
  ASSERT_TRUE(o.fits) << o.reason;
  EXPECT_EQ(o.data, std::vector<std::string>{"6,1,7:1g.10gb"});
  EXPECT_EQ(o.picks[0].cores, 14);
  // A bigger profile is taken when the smaller one has no free placement.
  const OfferedDevice small_full = offered(
      plugin_,
      mig_register_device("GPU-a", 7, 40960,
                          {{"1g.5gb", 5120, 14, 1, {{6, 1}}}, {"2g.10gb", 10240, 28, 2, {{0, 2}}}}),
      {"6,1,6:1g.5gb"});
  const MigFitOutcome bigger = run({small_full}, make_request(1, 1000, 0, 0));
  ASSERT_TRUE(bigger.fits) << bigger.reason;
  EXPECT_EQ(bigger.data, std::vector<std::string>{"0,2,7:2g.10gb"});
  EXPECT_EQ(bigger.picks[0].memory_mib, 10240);
  EXPECT_EQ(bigger.picks[0].cores, 28);
}

TEST_F(NvidiaMigFit, TestCustomFilterRule_NonMig) {
  // A hami-core device is not subject to the MIG rule; holds of pods
  // without MIG data are "".
  std::vector<RawDevice> d = plugin_.decode_register(
      R"([{"id":"GPU-0","count":10,"devmem":8192,"devcore":100,"type":"NVIDIA-Tesla P4","mode":"hami-core","health":true}])");
  OfferedDevice o{d.at(0), 1, 1000, 10, {""}};
  const MigFitOutcome r = run({o}, make_request(1, 1000, 0, 10));
  ASSERT_TRUE(r.fits) << r.reason;
  EXPECT_EQ(r.data, std::vector<std::string>{""});
  EXPECT_EQ(r.picks[0].memory_mib, 1000);
}

// --- pkg/scheduler/mig_allocation_test.go ---

TEST_F(NvidiaMigFit, TestFitInDevicesAllowsMultipleMigPlacementsOnSingleGPU) {
  const MigFitOutcome o =
      run({single_gpu({{0, 1}, {1, 1}, {2, 1}, {3, 1}, {4, 1}, {5, 1}, {6, 1}})},
          make_request(2, 4000, 0, 0), {{kMode, "mig"}});
  ASSERT_TRUE(o.fits) << o.reason;
  EXPECT_EQ(o.ids, (std::vector<std::string>{"GPU-a", "GPU-a"}));
  EXPECT_EQ(o.data, (std::vector<std::string>{"6,1,6:1g.5gb", "5,1,6:1g.5gb"}));
  EXPECT_EQ(o.picks[0].device, 0u);
  EXPECT_EQ(o.picks[1].device, 0u);
}

TEST_F(NvidiaMigFit, TestFitInDevicesRejectsInsufficientMigPlacementsOnSingleGPU) {
  const MigFitOutcome o =
      run({single_gpu({{6, 1}})}, make_request(2, 4000, 0, 0), {{kMode, "mig"}});
  EXPECT_FALSE(o.fits);
  EXPECT_EQ(o.reason, "1/1 AllocatedCardsInsufficientRequest, 1/1 CardMigTopologyInfeasible");
}

TEST_F(NvidiaMigFit, TestFitInDevicesRetainsPhysicalCountCheckForNonMigGPU) {
  std::vector<RawDevice> d = plugin_.decode_register(
      R"([{"id":"GPU-a","count":7,"devmem":40960,"devcore":100,"type":"NVIDIA","mode":"hami-core","health":true}])");
  const MigFitOutcome o = run({OfferedDevice{d.at(0), 0, 0, 0, {}}}, make_request(2, 4000, 0, 0),
                              {{kMode, "hami-core"}});
  EXPECT_FALSE(o.fits);
  EXPECT_EQ(o.reason, "NodeInsufficientDevice");
}

TEST_F(NvidiaMigFit, TestIsMIGRequest) {
  const auto two_instances = [&](Pairs annotations, bool mig_device) {
    OfferedDevice d = single_gpu({{5, 1}, {6, 1}});
    if (!mig_device)
      d.device.mode = "hami-core";
    return run({d}, make_request(2, 4000, 0, 0), std::move(annotations));
  };
  // explicit HAMi-core mode: not a MIG request, the count check applies.
  EXPECT_EQ(two_instances({{kMode, "hami-core"}}, true).reason, "NodeInsufficientDevice");
  // MIG mode without an annotation, and with a MIG annotation: no count check.
  EXPECT_TRUE(two_instances({}, true).fits);
  EXPECT_TRUE(two_instances({{kMode, "mig"}}, true).fits);
  EXPECT_TRUE(two_instances({{kMode, "hami-core,mig"}}, true).fits);  // substring test
  // No MIG device.
  EXPECT_EQ(two_instances({}, false).reason, "NodeInsufficientDevice");
}

TEST_F(NvidiaMigFit, TestGetNodesUsageFailsClosedWithoutMigAllocation) {
  // A pod on the MIG device whose allocation recorded no reservation.
  const MigFitOutcome o = run({single_gpu({{5, 1}, {6, 1}}, {""})}, make_request(1, 4000, 0, 0));
  EXPECT_FALSE(o.fits);
  EXPECT_EQ(o.reason, "1/1 CardNotHealth");
  // Holds that are not pick data fail closed the same way.
  EXPECT_EQ(run({single_gpu({{5, 1}, {6, 1}}, {"garbage"})}, make_request(1, 4000, 0, 0)).reason,
            "1/1 CardNotHealth");
}

TEST_F(NvidiaMigFit, MigReservationOnANonMigDeviceFailsClosed) {
  // getNodesUsage: "found a mig task running on a hami-core GPU".
  OfferedDevice d = single_gpu({{6, 1}});
  d.device.mode = "hami-core";
  d.holds = {"6,1,6:1g.5gb"};
  EXPECT_EQ(run({d}, make_request(1, 4000, 0, 0)).reason, "1/1 CardNotHealth");
}

TEST_F(NvidiaMigFit, TestGetNodesUsageRestoresMigAllocationByProfileAndPlacement) {
  // The restored reservation occupies the GPU's only placement.
  const MigFitOutcome o =
      run({single_gpu({{6, 1}}, {"6,1,6:1g.5gb"})}, make_request(1, 4000, 0, 0));
  EXPECT_EQ(o.reason, "1/1 CardMigTopologyInfeasible");
}

TEST_F(NvidiaMigFit, TestGetNodesUsageRestoresUnconsumedMigReservations) {
  // One hold with two reservations (5 and 6): the device stays healthy and
  // both placements are taken.
  const MigFitOutcome o = run({single_gpu({{5, 1}, {6, 1}}, {"6,1,6:1g.5gb;5,1,6:1g.5gb"})},
                              make_request(1, 4000, 0, 0));
  EXPECT_EQ(o.reason, "1/1 CardMigTopologyInfeasible");
  const MigFitOutcome one_left =
      run({single_gpu({{4, 1}, {5, 1}, {6, 1}}, {"6,1,6:1g.5gb;5,1,6:1g.5gb"})},
          make_request(1, 4000, 0, 0));
  ASSERT_TRUE(one_left.fits) << one_left.reason;
  EXPECT_EQ(one_left.data, std::vector<std::string>{"4,1,6:1g.5gb"});
}

TEST_F(NvidiaMigFit, RevisitsRunTheUsageChecksAgain) {
  // The quota hook sees the requested memory of every instance so far.
  struct Quota {
    std::vector<std::int64_t> asked;
    static std::uint32_t allows(void* ctx, std::int64_t memory, std::int64_t) {
      auto* q = static_cast<Quota*>(ctx);
      q->asked.push_back(memory);
      return memory <= 8000 ? 1u : 0u;
    }
  } q;
  const hami_quota_hook hook{sizeof(hami_quota_hook), &q, &Quota::allows};
  const MigFitOutcome o =
      run({single_gpu({{4, 1}, {5, 1}, {6, 1}})}, make_request(3, 4000, 0, 0), {}, 0, &hook);
  EXPECT_FALSE(o.fits);
  EXPECT_EQ(q.asked, (std::vector<std::int64_t>{4000, 8000, 12000}));
  // HAMi counts AllocatedCardsInsufficientRequest in picks, not devices.
  EXPECT_EQ(o.reason, "1/1 ResourceQuotaNotFit, 2/1 AllocatedCardsInsufficientRequest");
}

TEST_F(NvidiaMigFit, TopologyAwareCollectsEveryInstanceAndAssignsTheChosenOnes) {
  // All three placements are candidates; the two chosen get placements in
  // pick order, from the holds alone.
  const MigFitOutcome o = run({single_gpu({{4, 1}, {5, 1}, {6, 1}})}, make_request(2, 4000, 0, 0),
                              {}, HAMI_FIT_TOPOLOGY_AWARE);
  ASSERT_TRUE(o.fits) << o.reason;
  EXPECT_EQ(o.ids, (std::vector<std::string>{"GPU-a", "GPU-a"}));
  EXPECT_EQ(o.data, (std::vector<std::string>{"6,1,6:1g.5gb", "5,1,6:1g.5gb"}));
}

TEST_F(NvidiaMigFit, ZeroSizePlacementsDoNotLoopForever) {
  // HAMi would revisit forever (a size-0 placement never overlaps); the
  // visits are bounded by the placement count.
  const MigFitOutcome o =
      run({single_gpu({{0, 0}, {1, 0}})}, make_request(1, 4000, 0, 0), {}, HAMI_FIT_TOPOLOGY_AWARE);
  ASSERT_TRUE(o.fits) << o.reason;
  EXPECT_EQ(o.data, std::vector<std::string>{"1,0,6:1g.5gb"});
}

TEST_F(NvidiaMigFit, NumaRestartDropsTheInstancesPickedSoFar) {
  OfferedDevice a = single_gpu({{6, 1}});
  a.device.numa = 1;
  OfferedDevice b = single_gpu({{5, 1}, {6, 1}});
  b.device.id = "GPU-b";
  const MigFitOutcome o =
      run({a, b}, make_request(2, 4000, 0, 0), {{"nvidia.com/numa-bind", "true"}});
  ASSERT_TRUE(o.fits) << o.reason;
  EXPECT_EQ(o.ids, (std::vector<std::string>{"GPU-b", "GPU-b"}));
  EXPECT_EQ(o.data, (std::vector<std::string>{"6,1,6:1g.5gb", "5,1,6:1g.5gb"}));
}

TEST_F(NvidiaMigFit, VgpuModeAnnotationSelectsMigDevices) {
  EXPECT_EQ(run({single_gpu({{6, 1}})}, make_request(1, 4000, 0, 0), {{kMode, "hami-core"}}).reason,
            "1/1 CardTypeMismatch");
  EXPECT_TRUE(run({single_gpu({{6, 1}})}, make_request(1, 4000, 0, 0), {{kMode, "mig"}}).fits);
}

TEST_F(NvidiaMigFit, WithoutPickDataMigDevicesFailClosed) {
  const MigFitOutcome o =
      run({single_gpu({{6, 1}})}, make_request(1, 4000, 0, 0), {}, 0, nullptr, false);
  EXPECT_EQ(o.reason, "1/1 CardNotHealth");
}

TEST_F(NvidiaMigFit, NoProfilesMeansNoPlacement) {
  const OfferedDevice d = offered(plugin_, mig_register_device("GPU-a", 7, 40960, {}));
  EXPECT_EQ(d.device.attributes, "");
  EXPECT_EQ(run({d}, make_request(1, 4000, 0, 0)).reason, "1/1 CardMigTopologyInfeasible");
}

}  // namespace
}  // namespace hami::testing
