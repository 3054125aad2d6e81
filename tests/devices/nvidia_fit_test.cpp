// NVIDIA Fit through nvidia.so's ABI: HAMi §5.5 and the cases of
// TestDevices_Fit, TestFit_DeviceCordon, TestFit_NumaSwitching,
// TestFit_MutexPolicy, TestFit_Topology*, TestFitQuota (through the quota
// hook), TestZeroMemoryPercentageIsAccountedAsWholeCard, Test_checkType,
// TestCheckUUID/TestCheckType (selector rules) and CheckType_AllocateMode.
//
// HAMi's tests list devices in its sorted order and Fit walks them from the
// end; the ABI hands devices over in try order. `hami_order` reverses a
// HAMi-ordered list so each port keeps HAMi's expectations verbatim.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include "device_under_test.hpp"
#include "fit_run.hpp"
#include "k8s_views.hpp"
#include "mig_plugin.hpp"
#include "raw_device_plugin.hpp"

namespace hami::testing {
namespace {

std::vector<DeviceState> hami_order(std::vector<DeviceState> devices) {
  std::reverse(devices.begin(), devices.end());
  return devices;
}

class NvidiaFit : public ::testing::Test {
 protected:
  FitOutcome run(FitFixture& devices, PodFixture& pod, const hami_device_request& req,
                 std::uint32_t flags = 0, const hami_quota_hook* quota = nullptr) {
    return run_fit(dut_, devices, pod, req, flags, quota);
  }
  FitOutcome run(std::vector<DeviceState> devices, const hami_device_request& req,
                 Pairs annotations = {}, std::uint32_t flags = 0) {
    return run_fit(dut_, std::move(devices), req, std::move(annotations), flags);
  }

  DeviceUnderTest dut_{"nvidia"};
};

TEST_F(NvidiaFit, DevicesFitTable) {
  struct Case {
    const char* name;
    std::vector<DeviceState> devices;  // HAMi order
    hami_device_request request;
    Pairs annotations;
    bool fits;
    std::vector<std::string> ids;
    std::string reason;
  };
  const std::vector<Case> cases = {
      {"fit success",
       {nvidia_card("dev-0", 128), nvidia_card("dev-1", 128)},
       make_request(1, 64, 0, 50),
       {},
       true,
       {"dev-1"},
       ""},
      {"memory not enough",
       {nvidia_card("dev-0", 128)},
       make_request(1, 512, 0, 50),
       {},
       false,
       {},
       "1/1 CardInsufficientMemory"},
      {"core not enough",
       {nvidia_card("dev-0", 1024, 100, 0, 0, 100)},
       make_request(1, 512, 0, 50),
       {},
       false,
       {},
       "1/1 CardInsufficientCore"},
      {"type mismatch",
       {nvidia_card("dev-0", 128)},
       make_request(1, 64, 0, 50),
       {{"nvidia.com/use-gputype", "A100"}},
       false,
       {},
       "1/1 CardTypeMismatch"},
      {"use uuid mismatch",
       {nvidia_card("dev-1", 1280)},
       make_request(2, 512, 0, 50),
       {{"nvidia.com/use-gpuuuid", "dev-0"}},
       false,
       {},
       "1/1 CardUuidMismatch"},
      {"nouse uuid match",
       {nvidia_card("dev-0", 1280)},
       make_request(2, 512, 0, 50),
       {{"nvidia.com/nouse-gpuuuid", "dev-0"}},
       false,
       {},
       "1/1 CardUuidMismatch"},
      {"card overused",
       {nvidia_card("dev-0", 1280, 100, 100)},
       make_request(1, 512, 0, 50),
       {},
       false,
       {},
       "1/1 CardTimeSlicingExhausted"},
      {"cores 120 clamps to 100 and fits",
       {nvidia_card("dev-0", 1280)},
       make_request(1, 512, 0, 120),
       {},
       true,
       {"dev-0"},
       ""},
      {"card exclusively",
       {nvidia_card("dev-0", 1280, 100, 20)},
       make_request(1, 512, 0, 100),
       {},
       false,
       {},
       "1/1 ExclusiveDeviceAllocateConflict"},
      {"compute units exhausted",
       {nvidia_card("dev-0", 1280, 100, 20, 0, 100)},
       make_request(1, 512, 0, 0),
       {},
       false,
       {},
       "1/1 CardComputeUnitsExhausted"},
      {"allocated cards insufficient",
       {nvidia_card("dev-0", 1280, 100, 20, 0, 10)},
       make_request(2, 512, 0, 20),
       {},
       false,
       {},
       "1/1 AllocatedCardsInsufficientRequest"},
      {"partial allocation for multiple cards",
       {nvidia_card("dev-0", 1280), nvidia_card("dev-1", 1280)},
       make_request(3, 512, 0, 20),
       {},
       false,
       {},
       "2/2 AllocatedCardsInsufficientRequest"},
      {"memory percentage",
       {nvidia_card("dev-0", 1280, 100, 20, 0, 10)},
       make_request(1, 0, 10, 20),
       {},
       true,
       {"dev-0"},
       ""},
      {"not healthy",
       {nvidia_card("dev-0", 1280, 100, 20, 0, 10, false)},
       make_request(1, 0, 10, 20),
       {},
       false,
       {},
       "1/1 CardNotHealth"},
  };
  const MigPlugin raw;
  for (const Case& c : cases) {
    const FitOutcome o = run(hami_order(c.devices), c.request, c.annotations);
    EXPECT_EQ(o.result.fits, c.fits) << c.name;
    EXPECT_EQ(o.ids, c.ids) << c.name;
    if (static_cast<std::size_t>(c.request.count) <= c.devices.size()) {
      EXPECT_EQ(o.result.reason, c.reason) << c.name;
      continue;
    }
    // More cards asked than the node has: HAMi's fitInDevices fails the
    // node before its Fit runs (§5.3), and nvidia.so, which a 1.1 host
    // leaves that check to (HAMI_VENDOR_MULTI_PICK), does the same. HAMi's
    // Fit alone is what a 1.0 host gets, without pick data.
    EXPECT_EQ(o.result.reason, "NodeInsufficientDevice") << c.name;
    std::vector<OfferedDevice> offered;
    for (const DeviceState& d : hami_order(c.devices)) {
      offered.push_back({{d.id, d.type, d.mode, "", d.index, d.count, d.memory_mib, d.cores, d.numa,
                          d.healthy ? HAMI_DEVICE_HEALTHY : 0u},
                         d.used,
                         d.used_memory_mib,
                         d.used_cores,
                         {}});
    }
    PodFixture pod;
    for (const auto& [k, v] : c.annotations)
      pod.annotation(k, v);
    pod.container({});
    const MigFitOutcome fit_only = raw.fit(offered, pod, c.request, 0, nullptr, false);
    EXPECT_FALSE(fit_only.fits) << c.name;
    EXPECT_EQ(fit_only.reason, c.reason) << c.name;
  }
}

TEST_F(NvidiaFit, PicksCarryVendorTypeMemoryAndClampedCores) {
  const FitOutcome pct = run({nvidia_card("dev-0", 1280)}, make_request(1, 0, 10, 20));
  ASSERT_EQ(pct.picks.size(), 1u);
  EXPECT_EQ(std::string(pct.picks[0].type.ptr, pct.picks[0].type.len), "NVIDIA");
  EXPECT_EQ(pct.picks[0].memory_mib, 128);  // 10 % of 1280
  EXPECT_EQ(pct.picks[0].cores, 20);
  const FitOutcome clamped = run({nvidia_card("dev-0", 1280)}, make_request(1, 512, 0, 120));
  ASSERT_EQ(clamped.picks.size(), 1u);
  EXPECT_EQ(clamped.picks[0].cores, 100);
  EXPECT_EQ(clamped.picks[0].memory_mib, 512);
}

TEST_F(NvidiaFit, ReasonsAreCountedPerDeviceAndSortedAsStrings) {
  std::vector<DeviceState> devices = {nvidia_card("a", 1000), nvidia_card("b", 1000),
                                      nvidia_card("c", 1000),
                                      nvidia_card("d", 8000, 100, 1, 0, 90)};
  const FitOutcome o = run(devices, make_request(1, 4000, 0, 50));
  EXPECT_FALSE(o.result.fits);
  EXPECT_EQ(o.result.reason, "1/4 CardInsufficientCore, 3/4 CardInsufficientMemory");
}

TEST_F(NvidiaFit, DeviceCordon) {
  std::vector<DeviceState> devices = {nvidia_card("dev-1", 128), nvidia_card("dev-0", 128)};
  devices[0].cordoned = true;
  FitOutcome o = run(devices, make_request(1, 64, 0, 50));
  EXPECT_TRUE(o.result.fits);
  EXPECT_EQ(o.ids, std::vector<std::string>{"dev-0"});

  devices[1].cordoned = true;
  o = run(devices, make_request(1, 64, 0, 50));
  EXPECT_FALSE(o.result.fits);
  EXPECT_EQ(o.result.reason, "2/2 CardCordoned");
}

TEST_F(NvidiaFit, NumaBindRestartsOnNumaChange) {
  // HAMi order dev-0(1), dev-1(1), dev-2(0); tried dev-2 → dev-1 → dev-0: the
  // pick on NUMA 0 is dropped when NUMA 1 starts.
  std::vector<DeviceState> devices = {nvidia_card("dev-0", 8192, 10),
                                      nvidia_card("dev-1", 8192, 10),
                                      nvidia_card("dev-2", 8192, 10)};
  devices[0].numa = 1;
  devices[1].numa = 1;
  devices[2].numa = 0;
  const FitOutcome o =
      run(hami_order(devices), make_request(2, 100, 0, 10), {{"nvidia.com/numa-bind", "true"}});
  EXPECT_TRUE(o.result.fits);
  EXPECT_EQ(o.ids, (std::vector<std::string>{"dev-1", "dev-0"}));

  // Without numa-bind the first two tried are taken.
  const FitOutcome free = run(hami_order(devices), make_request(2, 100, 0, 10));
  EXPECT_EQ(free.ids, (std::vector<std::string>{"dev-2", "dev-1"}));

  // No NUMA node holds two: the dropped pick is reported.
  std::vector<DeviceState> split = {nvidia_card("a", 8192, 10), nvidia_card("b", 8192, 10)};
  split[1].numa = 1;
  const FitOutcome no = run(split, make_request(2, 100, 0, 10), {{"nvidia.com/numa-bind", "true"}});
  EXPECT_FALSE(no.result.fits);
  EXPECT_EQ(no.result.reason, "1/2 AllocatedCardsInsufficientRequest, 1/2 NumaNotFit");
}

TEST_F(NvidiaFit, MutexPolicyTakesOnlyIdleDevices) {
  const std::vector<DeviceState> devices = {nvidia_card("used", 8192, 10, 1),
                                            nvidia_card("idle", 8192, 10)};
  const FitOutcome one = run(hami_order(devices), make_request(1, 100, 0, 10), {}, HAMI_FIT_MUTEX);
  EXPECT_TRUE(one.result.fits);
  EXPECT_EQ(one.ids, std::vector<std::string>{"idle"});
  const FitOutcome two = run(hami_order(devices), make_request(2, 100, 0, 10), {}, HAMI_FIT_MUTEX);
  EXPECT_FALSE(two.result.fits);
  EXPECT_EQ(two.result.reason,
            "1/2 AllocatedCardsInsufficientRequest, 1/2 ExclusiveDeviceAllocateConflict");
}

class NvidiaTopology : public NvidiaFit {
 protected:
  FitOutcome topo(const std::vector<PairScoreSpec>& scores, std::int32_t count) {
    FitFixture f({nvidia_card("dev-0", 8192, 10), nvidia_card("dev-1", 8192, 10),
                  nvidia_card("dev-2", 8192, 10)},
                 scores);
    PodFixture pod;
    pod.container({});
    return run(f, pod, make_request(count, 100, 0, 10), HAMI_FIT_TOPOLOGY_AWARE);
  }
  static std::vector<PairScoreSpec> scores(std::int32_t s01, std::int32_t s02, std::int32_t s12) {
    return FitFixture::symmetric(
        {{"dev-0", "dev-1", s01}, {"dev-0", "dev-2", s02}, {"dev-1", "dev-2", s12}});
  }
};

TEST_F(NvidiaTopology, ExactMatchTakesAllCandidates) {
  FitFixture f({nvidia_card("dev-0", 8192, 10), nvidia_card("dev-1", 8192, 10)});
  PodFixture pod;
  pod.container({});
  const FitOutcome o = run(f, pod, make_request(2, 100, 0, 10), HAMI_FIT_TOPOLOGY_AWARE);
  EXPECT_TRUE(o.result.fits);
  EXPECT_EQ(o.ids, (std::vector<std::string>{"dev-0", "dev-1"}));
}

TEST_F(NvidiaTopology, SingleCardIsTheWorstConnected) {
  // totals: dev-0 300, dev-1 250, dev-2 350.
  const FitOutcome o = topo(scores(100, 200, 150), 1);
  EXPECT_TRUE(o.result.fits);
  EXPECT_EQ(o.ids, std::vector<std::string>{"dev-1"});
}

TEST_F(NvidiaTopology, SeveralCardsAreTheBestCombination) {
  const FitOutcome o = topo(scores(100, 200, 150), 2);
  EXPECT_TRUE(o.result.fits);
  EXPECT_EQ(o.ids, (std::vector<std::string>{"dev-0", "dev-2"}));
}

TEST_F(NvidiaTopology, ZeroScoresStillPickTheRequestedCount) {
  // HAMi's best-combination search starts at score 0 and can return no cards;
  // ties here go to the first combination in try order.
  const FitOutcome o = topo(scores(0, 0, 0), 2);
  EXPECT_TRUE(o.result.fits);
  EXPECT_EQ(o.ids, (std::vector<std::string>{"dev-0", "dev-1"}));
  const FitOutcome none = topo({}, 2);
  EXPECT_EQ(none.ids, (std::vector<std::string>{"dev-0", "dev-1"}));
}

TEST_F(NvidiaTopology, NegativeScores) {
  // dev-0 -8, dev-1 -6, dev-2 -4 → single: dev-0; pairs: (1,2) = -1 is best.
  EXPECT_EQ(topo(scores(-5, -3, -1), 1).ids, std::vector<std::string>{"dev-0"});
  EXPECT_EQ(topo(scores(-5, -3, -1), 2).ids, (std::vector<std::string>{"dev-1", "dev-2"}));
}

TEST_F(NvidiaTopology, TooFewCandidatesFails) {
  std::vector<DeviceState> devices = {nvidia_card("dev-0", 8192, 10), nvidia_card("dev-1", 64, 10)};
  FitFixture f(devices);
  PodFixture pod;
  pod.container({});
  const FitOutcome o = run(f, pod, make_request(2, 100, 0, 10), HAMI_FIT_TOPOLOGY_AWARE);
  EXPECT_FALSE(o.result.fits);
  EXPECT_EQ(o.result.reason, "1/2 AllocatedCardsInsufficientRequest, 1/2 CardInsufficientMemory");
}

TEST_F(NvidiaTopology, LargeNodesUseTheGreedyChoiceWithinBounds) {
  // 40 cards choose 12: C(40,12) is far above the enumeration bound.
  std::vector<DeviceState> devices;
  std::vector<PairScoreSpec> s;
  for (int i = 0; i < 40; ++i)
    devices.push_back(nvidia_card("g" + std::to_string(i), 8192, 10));
  // g30..g41 would be best; only g30..g39 exist, plus g0, g1 weakly linked.
  for (int i = 30; i < 40; ++i) {
    for (int j = 30; j < 40; ++j) {
      if (i != j)
        s.push_back({"g" + std::to_string(i), "g" + std::to_string(j), 500});
    }
  }
  s.push_back({"g0", "g30", 10});
  s.push_back({"g30", "g0", 10});
  s.push_back({"g1", "g31", 5});
  s.push_back({"g31", "g1", 5});
  FitFixture f(devices, s);
  PodFixture pod;
  pod.container({});
  const FitOutcome o = run(f, pod, make_request(12, 100, 0, 10), HAMI_FIT_TOPOLOGY_AWARE);
  ASSERT_TRUE(o.result.fits);
  ASSERT_EQ(o.ids.size(), 12u);
  std::vector<std::string> sorted = o.ids;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_TRUE(std::binary_search(sorted.begin(), sorted.end(), "g0"));
  EXPECT_TRUE(std::binary_search(sorted.begin(), sorted.end(), "g1"));
  for (int i = 30; i < 40; ++i) {
    EXPECT_TRUE(std::binary_search(sorted.begin(), sorted.end(), "g" + std::to_string(i)));
  }
}

struct QuotaProbe {
  std::int64_t memory_limit;
  std::vector<std::pair<std::int64_t, std::int64_t>> calls;
};

std::uint32_t quota_allows(void* ctx, std::int64_t memory, std::int64_t cores) {
  auto* q = static_cast<QuotaProbe*>(ctx);
  q->calls.emplace_back(memory, cores);
  return memory <= q->memory_limit ? 1u : 0u;
}

TEST_F(NvidiaFit, QuotaHookSeesTheContainerTotalSoFar) {
  QuotaProbe probe{2048, {}};
  const hami_quota_hook hook{sizeof(hami_quota_hook), &probe, &quota_allows};
  FitFixture f({nvidia_card("a", 8192), nvidia_card("b", 8192)});
  PodFixture pod;
  pod.container({});
  const FitOutcome fits = run(f, pod, make_request(2, 1024, 0, 10), 0, &hook);
  EXPECT_TRUE(fits.result.fits);
  EXPECT_EQ(probe.calls,
            (std::vector<std::pair<std::int64_t, std::int64_t>>{{1024, 10}, {2048, 20}}));

  probe.calls.clear();
  const FitOutcome over = run(f, pod, make_request(2, 1500, 0, 10), 0, &hook);
  EXPECT_FALSE(over.result.fits);
  EXPECT_EQ(over.result.reason, "1/2 AllocatedCardsInsufficientRequest, 1/2 ResourceQuotaNotFit");
  EXPECT_EQ(probe.calls,
            (std::vector<std::pair<std::int64_t, std::int64_t>>{{1500, 10}, {3000, 20}}));
}

TEST_F(NvidiaFit, QuotaIsCheckedBeforeDeviceCapacity) {
  QuotaProbe probe{0, {}};
  const hami_quota_hook hook{sizeof(hami_quota_hook), &probe, &quota_allows};
  FitFixture f({nvidia_card("a", 100)});
  PodFixture pod;
  pod.container({});
  const FitOutcome o = run(f, pod, make_request(1, 500, 0, 10), 0, &hook);
  EXPECT_EQ(o.result.reason, "1/1 ResourceQuotaNotFit");
}

TEST_F(NvidiaFit, ZeroMemoryPercentageIsAccountedAsWholeCard) {
  PodFixture pod;
  pod.container(
      {"test", false, {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem-percentage", "0"}}, {}, {}});
  const hami_device_request req = dut_.plugin().container_request(pod.view(), 0).request;
  FitFixture empty({nvidia_card("dev-0", 11264, 10)});
  const FitOutcome o = run(empty, pod, req);
  ASSERT_TRUE(o.result.fits) << o.result.reason;
  EXPECT_EQ(o.picks[0].memory_mib, 11264);
  FitFixture nearly_full({nvidia_card("dev-0", 11264, 10, 0, 11260)});
  const FitOutcome full = run(nearly_full, pod, req);
  EXPECT_FALSE(full.result.fits);
  EXPECT_EQ(full.result.reason, "1/1 CardInsufficientMemory");
}

TEST_F(NvidiaFit, VgpuModeAnnotationRestrictsDeviceMode) {
  std::vector<DeviceState> devices = {nvidia_card("a", 8192, 10)};
  devices[0].mode = "hami-core";
  EXPECT_FALSE(
      run(devices, make_request(1, 100, 0, 10), {{"nvidia.com/vgpu-mode", "mps"}}).result.fits);
  EXPECT_EQ(
      run(devices, make_request(1, 100, 0, 10), {{"nvidia.com/vgpu-mode", "mps"}}).result.reason,
      "1/1 CardTypeMismatch");
  EXPECT_TRUE(run(devices, make_request(1, 100, 0, 10), {{"nvidia.com/vgpu-mode", "hami-core"}})
                  .result.fits);
  // An empty registered mode is hami-core.
  devices[0].mode = "";
  EXPECT_TRUE(run(devices, make_request(1, 100, 0, 10), {{"nvidia.com/vgpu-mode", "hami-core"}})
                  .result.fits);
}

TEST_F(NvidiaFit, TypeSelectorRules) {
  const auto fits = [&](std::string type, Pairs annos) {
    std::vector<DeviceState> d = {nvidia_card("GPU-a", 8192, 10)};
    d[0].type = std::move(type);
    return run(d, make_request(1, 100, 0, 10), std::move(annos)).result.fits;
  };
  // Test_checkType
  EXPECT_TRUE(fits("NVIDIA A100", {{"nvidia.com/use-gputype", "A10"}}));
  EXPECT_FALSE(fits("NVIDIA A100",
                    {{"nvidia.com/use-gputype", "A10"}, {"nvidia.com/nouse-gputype", "A100"}}));
  EXPECT_TRUE(fits("NVIDIA A10",
                   {{"nvidia.com/use-gputype", "A10"}, {"nvidia.com/nouse-gputype", "A100"}}));
  // case-insensitive substring
  EXPECT_TRUE(fits("NVIDIA A100-SXM4-40GB", {{"nvidia.com/use-gputype", "a100"}}));
  EXPECT_FALSE(fits("NVIDIA-V100", {{"nvidia.com/use-gputype", "A100"}}));
  EXPECT_FALSE(fits("NVIDIA-A100", {{"nvidia.com/nouse-gputype", "A100"}}));
  EXPECT_TRUE(fits("NVIDIA-V100", {{"nvidia.com/nouse-gputype", "A100"}}));
  // empty / whitespace = no constraint; blank members ignored
  EXPECT_TRUE(fits("NVIDIA-A100", {{"nvidia.com/use-gputype", ""}}));
  EXPECT_TRUE(fits("NVIDIA-A100", {{"nvidia.com/use-gputype", "   "}}));
  EXPECT_TRUE(fits("NVIDIA-A100", {{"nvidia.com/nouse-gputype", ""}}));
  EXPECT_TRUE(fits("NVIDIA-A100", {{"nvidia.com/nouse-gputype", "   "}}));
  EXPECT_TRUE(fits("MI300X", {{"nvidia.com/nouse-gputype", "MI250,"}}));
  EXPECT_TRUE(fits("MI300X", {{"nvidia.com/nouse-gputype", ",MI250"}}));
  EXPECT_FALSE(fits("MI250X", {{"nvidia.com/nouse-gputype", " MI250 , "}}));
  EXPECT_TRUE(fits("MI300X", {{"nvidia.com/nouse-gputype", ", "}}));
  EXPECT_FALSE(fits("MI250X", {{"nvidia.com/use-gputype", "MI300,"}}));
  EXPECT_FALSE(fits("MI300X", {{"nvidia.com/use-gputype", ", "}}));
}

TEST_F(NvidiaFit, UuidSelectorRules) {
  const auto fits = [&](Pairs annos) {
    return run({nvidia_card("GPU-a", 8192, 10)}, make_request(1, 100, 0, 10), std::move(annos))
        .result.fits;
  };
  EXPECT_TRUE(fits({{"nvidia.com/use-gpuuuid", "GPU-b,GPU-a"}}));
  EXPECT_TRUE(fits({{"nvidia.com/use-gpuuuid", " GPU-a , "}}));
  EXPECT_FALSE(fits({{"nvidia.com/use-gpuuuid", "GPU-b"}}));
  EXPECT_FALSE(fits({{"nvidia.com/use-gpuuuid", "gpu-a"}}));  // exact match
  EXPECT_TRUE(fits({{"nvidia.com/use-gpuuuid", ""}}));
  EXPECT_TRUE(fits({{"nvidia.com/use-gpuuuid", "  "}}));
  EXPECT_FALSE(fits({{"nvidia.com/nouse-gpuuuid", "GPU-a"}}));
  EXPECT_TRUE(fits({{"nvidia.com/nouse-gpuuuid", ",GPU-b,"}}));
  // nouse wins over use
  EXPECT_FALSE(fits({{"nvidia.com/use-gpuuuid", "GPU-a"}, {"nvidia.com/nouse-gpuuuid", "GPU-a"}}));
}

TEST_F(NvidiaFit, NoRequestFitsWithoutPicks) {
  const FitOutcome o = run({nvidia_card("a", 100)}, make_request(0, 0, 0, 0));
  EXPECT_TRUE(o.result.fits);
  EXPECT_EQ(o.result.picks_len, 0u);
}

// The host never offers fewer pick slots than the request count; a caller of
// the raw ABI that does gets INVALID_ARGUMENT, not a buffer overrun.
TEST_F(NvidiaFit, TooFewPickSlotsIsAnInputError) {
  const RawLibrary library(DeviceUnderTest::plugin_dir() + "/nvidia.so");
  const RawInstance instance(library, "{}");
  FitFixture f({nvidia_card("a", 8192), nvidia_card("b", 8192)});
  PodFixture pod;
  pod.container({});
  const hami_fit_input in = f.input(pod.view(), make_request(2, 100, 0, 10));
  hami_fit_pick one[1] = {};
  hami_fit_output out{};
  out.struct_size = sizeof out;
  out.picks = one;
  out.picks_cap = 1;
  char buf[256] = {};
  EXPECT_EQ(instance.vtable().fit(instance.get(), &in, &out, hami_errbuf{buf, sizeof buf}),
            HAMI_INVALID_ARGUMENT);
  EXPECT_STREQ(buf, "fit: picks_cap 1 is smaller than the request count 2");
  EXPECT_EQ(out.picks_len, 0u);
}

}  // namespace
}  // namespace hami::testing
