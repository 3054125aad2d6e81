// Cambricon Fit through cambricon.so's ABI: HAMi §4.5 and the cases of
// pkg/device/cambricon/device_test.go: TestDevices_Fit (the standard table
// T1–T15 with the vendor's keys), TestDevices_Fit_ResourceQuotaWholeCardRequest
// (the namespace quota through the host's quota hook) and Test_checkType as
// far as the ABI expresses it.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "device_under_test.hpp"
#include "fit_run.hpp"
#include "k8s_views.hpp"
#include "share_fit_boundaries.hpp"
#include "standard_fit_table.hpp"

namespace hami::testing {
namespace {

// A namespace quota on memory (MiB, after the factor 256) and cores that
// records what fit asks.
struct QuotaProbe {
  std::int64_t memory_limit;
  std::int64_t cores_limit;
  std::vector<std::pair<std::int64_t, std::int64_t>> calls;
};

std::uint32_t quota_allows(void* ctx, std::int64_t memory, std::int64_t cores) {
  auto* q = static_cast<QuotaProbe*>(ctx);
  q->calls.emplace_back(memory, cores);
  return memory <= q->memory_limit && cores <= q->cores_limit ? 1u : 0u;
}

hami_quota_hook hook_for(QuotaProbe& probe) {
  return hami_quota_hook{sizeof(hami_quota_hook), &probe, &quota_allows};
}

DeviceState mlu(std::string id, std::int64_t memory_mib, std::int32_t used = 0,
                std::int64_t used_memory_mib = 0, std::int32_t used_cores = 0) {
  DeviceState d = standard_card("MLU", std::move(id), memory_mib, used, used_cores);
  d.used_memory_mib = used_memory_mib;
  return d;
}

TEST(CambriconFit, StandardTable) {
  const DeviceUnderTest dut("cambricon");
  for (const StandardFitCase& c :
       standard_fit_cases({"MLU", "cambricon.com/use-gpuuuid", "cambricon.com/nouse-gpuuuid"})) {
    expect_standard_fit(dut, c);
  }
}

TEST(CambriconFit, ResourceQuotaWholeCardRequest) {
  // TestDevices_Fit_ResourceQuotaWholeCardRequest: quota
  // limits.cambricon.com/mlu.smlu.vmemory 50 (12800 MiB), a 40960 MiB card,
  // a whole-card request (memory 0, percent 100).
  const DeviceUnderTest dut("cambricon");
  QuotaProbe probe{50 * 256, 1 << 30, {}};
  const hami_quota_hook hook = hook_for(probe);
  FitFixture devices({mlu("dev-0", 40960)});
  PodFixture pod;
  pod.container({});
  const FitOutcome o = run_fit(dut, devices, pod, make_request(1, 0, 100, 100), 0, &hook);
  EXPECT_FALSE(o.result.fits);
  EXPECT_EQ(o.result.reason, "1/1 ResourceQuotaNotFit");
  EXPECT_EQ(probe.calls, (std::vector<std::pair<std::int64_t, std::int64_t>>{{40960, 100}}));
}

TEST(CambriconFit, QuotaIsCheckedBeforeTheMemoryCheck) {
  // A card without room for the request is refused for the quota first.
  const DeviceUnderTest dut("cambricon");
  QuotaProbe probe{1024, 1 << 30, {}};
  const hami_quota_hook hook = hook_for(probe);
  FitFixture devices({mlu("dev-0", 4096, 1, 4096, 10)});
  PodFixture pod;
  pod.container({});
  const FitOutcome o = run_fit(dut, devices, pod, make_request(1, 2048, 0, 10), 0, &hook);
  EXPECT_EQ(o.result.reason, "1/1 ResourceQuotaNotFit");
  // ... and after the card's own checks (here: time slices exhausted).
  probe.calls.clear();
  FitFixture full({mlu("dev-0", 4096, 100)});
  const FitOutcome o2 = run_fit(dut, full, pod, make_request(1, 2048, 0, 10), 0, &hook);
  EXPECT_EQ(o2.result.reason, "1/1 CardTimeSlicingExhausted");
  EXPECT_TRUE(probe.calls.empty());
}

TEST(CambriconFit, QuotaHookSeesTheContainerTotalSoFar) {
  // HAMi builds the pod with this container's picks so far plus the
  // candidate; the host adds the pod's other containers and the namespace.
  const DeviceUnderTest dut("cambricon");
  QuotaProbe probe{2048, 1 << 30, {}};
  const hami_quota_hook hook = hook_for(probe);
  FitFixture devices({mlu("a", 8192), mlu("b", 8192)});
  PodFixture pod;
  pod.container({});
  const FitOutcome fits = run_fit(dut, devices, pod, make_request(2, 1024, 0, 10), 0, &hook);
  EXPECT_TRUE(fits.result.fits);
  EXPECT_EQ(probe.calls,
            (std::vector<std::pair<std::int64_t, std::int64_t>>{{1024, 10}, {2048, 20}}));

  probe.calls.clear();
  const FitOutcome over = run_fit(dut, devices, pod, make_request(2, 1536, 0, 10), 0, &hook);
  EXPECT_FALSE(over.result.fits);
  EXPECT_EQ(over.result.reason, "1/2 AllocatedCardsInsufficientRequest, 1/2 ResourceQuotaNotFit");
  EXPECT_EQ(probe.calls,
            (std::vector<std::pair<std::int64_t, std::int64_t>>{{1536, 10}, {3072, 20}}));

  // Cores count as well; cores above 100 are asked as 100.
  QuotaProbe cores{1 << 30, 50, {}};
  const hami_quota_hook cores_hook = hook_for(cores);
  const FitOutcome c = run_fit(dut, devices, pod, make_request(1, 1024, 0, 120), 0, &cores_hook);
  EXPECT_EQ(c.result.reason, "2/2 ResourceQuotaNotFit");
  EXPECT_EQ(cores.calls,
            (std::vector<std::pair<std::int64_t, std::int64_t>>{{1024, 100}, {1024, 100}}));
}

TEST(CambriconFit, WithoutAQuotaHookNothingIsAsked) {
  const DeviceUnderTest dut("cambricon");
  const FitOutcome o = run_fit(dut, {mlu("dev-0", 40960)}, make_request(1, 0, 100, 100));
  ASSERT_TRUE(o.result.fits);
  EXPECT_EQ(o.picks[0].memory_mib, 40960);
  EXPECT_EQ(o.picks[0].cores, 100);
}

TEST(CambriconFit, CheckType) {
  // Test_checkType: a request of type MLU fits MLU devices. A request of
  // another type has no ABI form (the host hands fit only this vendor's
  // devices and requests). HAMi defines cambricon.com/use-mlutype and
  // nouse-mlutype but never reads them, and neither does this plugin.
  const DeviceUnderTest dut("cambricon");
  FitOutcome o = run_fit(dut, {mlu("dev-0", 1024)}, make_request(1, 512, 0, 50));
  ASSERT_TRUE(o.result.fits);
  EXPECT_EQ(o.types, std::vector<std::string>{"MLU"});
  o = run_fit(dut, {mlu("dev-0", 1024)}, make_request(1, 512, 0, 50),
              {{"cambricon.com/use-mlutype", "OtherType"}, {"cambricon.com/nouse-mlutype", "MLU"}});
  EXPECT_TRUE(o.result.fits);
}

TEST(CambriconFit, UuidSelectorsTrimAndList) {
  const DeviceUnderTest dut("cambricon");
  const std::vector<DeviceState> devices = {mlu("n-cambricon-mlu-0", 1024),
                                            mlu("n-cambricon-mlu-1", 1024)};
  FitOutcome o = run_fit(dut, devices, make_request(1, 512, 0, 50),
                         {{"cambricon.com/use-gpuuuid", "x, n-cambricon-mlu-1"}});
  ASSERT_TRUE(o.result.fits);
  EXPECT_EQ(o.ids, std::vector<std::string>{"n-cambricon-mlu-1"});
  o = run_fit(dut, devices, make_request(1, 512, 0, 50),
              {{"cambricon.com/nouse-gpuuuid", "n-cambricon-mlu-0"}});
  ASSERT_TRUE(o.result.fits);
  EXPECT_EQ(o.ids, std::vector<std::string>{"n-cambricon-mlu-1"});
  o = run_fit(dut, devices, make_request(2, 512, 0, 50),
              {{"cambricon.com/nouse-gpuuuid", "n-cambricon-mlu-0"}});
  EXPECT_EQ(o.result.reason, "1/2 AllocatedCardsInsufficientRequest, 1/2 CardUuidMismatch");
}

TEST(CambriconFit, PicksCarryTheVendorWordAndTheTakenShare) {
  const DeviceUnderTest dut("cambricon");
  // 20 vmemory units (5120 MiB) and 10 percent on a 24576 MiB MLU.
  FitOutcome o = run_fit(dut, {mlu("node1-cambricon-mlu-3", 24576)}, make_request(1, 5120, 0, 10));
  ASSERT_TRUE(o.result.fits);
  EXPECT_EQ(o.types, std::vector<std::string>{"MLU"});
  EXPECT_EQ(o.picks[0].memory_mib, 5120);
  EXPECT_EQ(o.picks[0].cores, 10);
  // A whole-card request takes the card's memory and is exclusive.
  o = run_fit(dut, {mlu("dev-0", 24576, 1, 5120, 10)}, make_request(1, 0, 100, 100));
  EXPECT_EQ(o.result.reason, "1/1 CardInsufficientMemory");
  o = run_fit(dut, {mlu("dev-0", 24576, 1, 0, 10)}, make_request(1, 1024, 0, 100));
  EXPECT_EQ(o.result.reason, "1/1 CardInsufficientCore");
  o = run_fit(dut, {mlu("dev-0", 24576, 1, 0, 0)}, make_request(1, 1024, 0, 100));
  EXPECT_EQ(o.result.reason, "1/1 ExclusiveDeviceAllocateConflict");
}

// Every capacity check of the share-fit at its boundary (reference §4.5).
TEST(CambriconCapacity, EveryShareFitCheckAtItsBoundary) {
  const DeviceUnderTest dut("cambricon");
  for (const BoundaryCase& c : share_fit_boundary_cases("MLU"))
    expect_boundary(dut, c);
}

// Step 6: the quota is asked for exactly the memory and cores the card
// would take; the limit itself is the host's (quota_limits.cpp).
TEST(CambriconCapacity, QuotaIsAskedForExactlyThePick) {
  const DeviceUnderTest dut("cambricon");
  PodFixture pod;
  pod.container({});
  QuotaProbe memory{1024, 1 << 30, {}};
  const hami_quota_hook memory_hook = hook_for(memory);
  FitFixture devices({mlu("dev-0", 8192)});
  EXPECT_TRUE(
      run_fit(dut, devices, pod, make_request(1, 1024, 0, 10), 0, &memory_hook).result.fits);
  EXPECT_EQ(run_fit(dut, devices, pod, make_request(1, 1025, 0, 10), 0, &memory_hook).result.reason,
            "1/1 ResourceQuotaNotFit");
  QuotaProbe cores{1 << 30, 30, {}};
  const hami_quota_hook cores_hook = hook_for(cores);
  EXPECT_TRUE(run_fit(dut, devices, pod, make_request(1, 1024, 0, 30), 0, &cores_hook).result.fits);
  EXPECT_EQ(run_fit(dut, devices, pod, make_request(1, 1024, 0, 31), 0, &cores_hook).result.reason,
            "1/1 ResourceQuotaNotFit");
}

}  // namespace
}  // namespace hami::testing
