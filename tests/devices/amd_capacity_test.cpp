// Every capacity check of AMD Fit (HAMi §5.6) at its boundary: memory in
// MiB (a 0 MiB request takes the whole card), compute units (the floored
// share of the card's CUs, clamped to [1, CUs]), split count (slots), and
// a whole-card request against an existing user.
#include <gtest/gtest.h>

#include "device_under_test.hpp"
#include "fit_run.hpp"
#include "k8s_views.hpp"

namespace hami::testing {
namespace {

class AmdCapacity : public ::testing::Test {
 protected:
  FitOutcome one(DeviceState d, const hami_device_request& req) {
    return run_fit(dut_, {std::move(d)}, req);
  }
  std::string reason(DeviceState d, const hami_device_request& req) {
    const FitOutcome o = one(std::move(d), req);
    return o.result.fits ? "fits" : o.result.reason;
  }

  DeviceUnderTest dut_{"amd"};
};

TEST_F(AmdCapacity, MemoryExactlyFreeFitsOneMibMoreDoesNot) {
  // 1000 MiB card, one task holding 400 MiB and 10 of 100 CUs.
  const FitOutcome exact =
      one(amd_card("amd", 4, 1000, 100, 400, 10, 1), make_request(1, 600, 0, 10));
  ASSERT_TRUE(exact.result.fits) << exact.result.reason;
  EXPECT_EQ(exact.picks[0].memory_mib, 600);
  EXPECT_EQ(reason(amd_card("amd", 4, 1000, 100, 400, 10, 1), make_request(1, 601, 0, 10)),
            "1/1 CardInsufficientMemory");
  EXPECT_EQ(reason(amd_card("amd", 4, 1000, 100, 401, 10, 1), make_request(1, 600, 0, 10)),
            "1/1 CardInsufficientMemory");
}

TEST_F(AmdCapacity, ZeroMibTakesTheWholeCardsMemory) {
  const FitOutcome whole = one(amd_card("amd", 4, 1000, 100), make_request(1, 0, 0, 10));
  ASSERT_TRUE(whole.result.fits) << whole.result.reason;
  EXPECT_EQ(whole.picks[0].memory_mib, 1000);
  // A single MiB in use is one too many.
  EXPECT_EQ(reason(amd_card("amd", 4, 1000, 100, 1, 0, 1), make_request(1, 0, 0, 10)),
            "1/1 CardInsufficientMemory");
}

TEST_F(AmdCapacity, ComputeUnitsExactlyFreeFitOneMoreDoNot) {
  // 100 CUs, 50 in use: 50 % is 50 CUs, 51 % is 51.
  const FitOutcome exact =
      one(amd_card("amd", 4, 1000, 100, 0, 50, 1), make_request(1, 100, 0, 50));
  ASSERT_TRUE(exact.result.fits) << exact.result.reason;
  EXPECT_EQ(exact.picks[0].cores, 50);
  EXPECT_EQ(reason(amd_card("amd", 4, 1000, 100, 0, 50, 1), make_request(1, 100, 0, 51)),
            "1/1 CardInsufficientCore");
  // MI300X: 25 % of 304 CUs is 76; 228 in use leave exactly 76.
  EXPECT_EQ(reason(amd_card("mi300", 4, 196608, 304, 0, 228, 3), make_request(1, 16384, 0, 25)),
            "fits");
  EXPECT_EQ(reason(amd_card("mi300", 4, 196608, 304, 0, 229, 3), make_request(1, 16384, 0, 25)),
            "1/1 CardInsufficientCore");
}

TEST_F(AmdCapacity, ComputeUnitShareIsFlooredAndAtLeastOne) {
  // 51 % of 64 CUs is 32.64: 32 CUs, which 32 free CUs hold.
  const FitOutcome floored =
      one(amd_card("amd", 4, 1000, 64, 0, 32, 1), make_request(1, 100, 0, 51));
  ASSERT_TRUE(floored.result.fits) << floored.result.reason;
  EXPECT_EQ(floored.picks[0].cores, 32);
  // 1 % of 64 CUs is 0.64: one CU, still needed.
  const FitOutcome least = one(amd_card("amd", 4, 1000, 64, 0, 63, 1), make_request(1, 100, 0, 1));
  ASSERT_TRUE(least.result.fits) << least.result.reason;
  EXPECT_EQ(least.picks[0].cores, 1);
  EXPECT_EQ(reason(amd_card("amd", 4, 1000, 64, 0, 64, 1), make_request(1, 100, 0, 1)),
            "1/1 CardInsufficientCore");
}

TEST_F(AmdCapacity, ComputeUnitShareIsAtMostTheCard) {
  // HAMi's "clamp to total": a share above 100 % takes every CU, no more.
  const FitOutcome o = one(amd_card("amd", 4, 1000, 64), make_request(1, 100, 0, 150));
  ASSERT_TRUE(o.result.fits) << o.result.reason;
  EXPECT_EQ(o.picks[0].cores, 64);
}

TEST_F(AmdCapacity, WholeCardWithoutPercentageTakesEveryComputeUnit) {
  // Whole memory (0 MiB, or the card's MiB) and no percentage: all 64 CUs.
  for (const std::int64_t mib : {std::int64_t{0}, std::int64_t{1000}}) {
    const FitOutcome o = one(amd_card("amd", 4, 1000, 64), make_request(1, mib, 0, 0));
    ASSERT_TRUE(o.result.fits) << o.result.reason;
    EXPECT_EQ(o.picks[0].memory_mib, 1000);
    EXPECT_EQ(o.picks[0].cores, 64);
  }
  // So one CU in use (and no memory) blocks it.
  EXPECT_EQ(reason(amd_card("amd", 4, 1000, 64, 0, 1, 1), make_request(1, 1000, 0, 0)),
            "1/1 CardInsufficientCore");
}

TEST_F(AmdCapacity, ExclusiveRequestAgainstAnExistingUser) {
  // 100 % asks every CU: one CU held by another task is enough to fail.
  EXPECT_EQ(reason(amd_card("amd", 4, 1000, 64, 100, 1, 1), make_request(1, 100, 0, 100)),
            "1/1 CardInsufficientCore");
  EXPECT_EQ(reason(amd_card("amd", 4, 1000, 64, 100, 0, 1), make_request(1, 100, 0, 100)), "fits");
  // A task holding every CU leaves nothing, not even the 1 CU minimum.
  EXPECT_EQ(reason(amd_card("amd", 4, 1000, 64, 100, 64, 1), make_request(1, 100, 0, 1)),
            "1/1 CardInsufficientCore");
}

TEST_F(AmdCapacity, SplitCountBoundsTheTasksOnACard) {
  EXPECT_EQ(reason(amd_card("amd", 2, 1000, 100, 100, 10, 1), make_request(1, 100, 0, 10)), "fits");
  EXPECT_EQ(reason(amd_card("amd", 2, 1000, 100, 200, 20, 2), make_request(1, 100, 0, 10)),
            "1/1 CardTimeSlicingExhausted");
  EXPECT_EQ(reason(amd_card("amd", 2, 1000, 100, 300, 30, 3), make_request(1, 100, 0, 10)),
            "1/1 CardTimeSlicingExhausted");
}

TEST_F(AmdCapacity, MutexPolicyWantsNoUserAtAll) {
  EXPECT_EQ(run_fit(dut_, {amd_card("amd", 4, 1000, 100, 100, 10, 1)}, make_request(1, 100, 0, 10),
                    {}, HAMI_FIT_MUTEX)
                .result.reason,
            "1/1 ExclusiveDeviceAllocateConflict");
  EXPECT_TRUE(run_fit(dut_, {amd_card("amd", 4, 1000, 100)}, make_request(1, 100, 0, 10), {},
                      HAMI_FIT_MUTEX)
                  .result.fits);
}

}  // namespace
}  // namespace hami::testing
