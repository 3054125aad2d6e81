// Every capacity check of NVIDIA Fit (HAMi §5.5) at its boundary: a request
// that takes exactly what is free fits, one unit more (or one unit less
// free) fails with HAMi's reason. Memory in MiB, memory percentage,
// cores, split count (slots), exclusive cards.
#include <gtest/gtest.h>

#include "device_under_test.hpp"
#include "fit_run.hpp"
#include "k8s_views.hpp"

namespace hami::testing {
namespace {

class NvidiaCapacity : public ::testing::Test {
 protected:
  FitOutcome one(DeviceState d, const hami_device_request& req) {
    return run_fit(dut_, {std::move(d)}, req);
  }
  std::string reason(DeviceState d, const hami_device_request& req) {
    const FitOutcome o = one(std::move(d), req);
    return o.result.fits ? "fits" : o.result.reason;
  }

  DeviceUnderTest dut_{"nvidia"};
};

// A 1024 MiB card with one task holding `used_mem` MiB and no cores.
DeviceState half_used(std::int64_t used_mem) {
  return nvidia_card("gpu", 1024, 10, 1, used_mem, 0);
}

TEST_F(NvidiaCapacity, MemoryExactlyFreeFitsOneMibMoreDoesNot) {
  const FitOutcome exact = one(half_used(512), make_request(1, 512, 0, 0));
  ASSERT_TRUE(exact.result.fits) << exact.result.reason;
  EXPECT_EQ(exact.picks[0].memory_mib, 512);
  EXPECT_EQ(reason(half_used(512), make_request(1, 513, 0, 0)), "1/1 CardInsufficientMemory");
  // One MiB more in use instead of one more asked.
  EXPECT_EQ(reason(half_used(513), make_request(1, 512, 0, 0)), "1/1 CardInsufficientMemory");
  // An idle card gives its whole memory and no more; a full one nothing.
  EXPECT_EQ(reason(nvidia_card("gpu", 1024), make_request(1, 1024, 0, 0)), "fits");
  EXPECT_EQ(reason(nvidia_card("gpu", 1024), make_request(1, 1025, 0, 0)),
            "1/1 CardInsufficientMemory");
  EXPECT_EQ(reason(half_used(1024), make_request(1, 1, 0, 0)), "1/1 CardInsufficientMemory");
}

TEST_F(NvidiaCapacity, MemoryPercentageIsTheFlooredShareOfTheCard) {
  // 50 % of 1000 MiB is 500 MiB, exactly what 500 used leaves.
  const FitOutcome exact = one(nvidia_card("gpu", 1000, 10, 1, 500), make_request(1, 0, 50, 0));
  ASSERT_TRUE(exact.result.fits) << exact.result.reason;
  EXPECT_EQ(exact.picks[0].memory_mib, 500);
  EXPECT_EQ(reason(nvidia_card("gpu", 1000, 10, 1, 500), make_request(1, 0, 51, 0)),
            "1/1 CardInsufficientMemory");
  EXPECT_EQ(reason(nvidia_card("gpu", 1000, 10, 1, 501), make_request(1, 0, 50, 0)),
            "1/1 CardInsufficientMemory");
  // Totalmem × pct / 100 in integers: 50 % of 1001 MiB is 500, not 501.
  const FitOutcome floored = one(nvidia_card("gpu", 1001, 10, 1, 501), make_request(1, 0, 50, 0));
  ASSERT_TRUE(floored.result.fits) << floored.result.reason;
  EXPECT_EQ(floored.picks[0].memory_mib, 500);
  // The smallest share: 1 % of 1000 MiB is 10 MiB.
  const FitOutcome small = one(nvidia_card("gpu", 1000, 10, 1, 990), make_request(1, 0, 1, 0));
  ASSERT_TRUE(small.result.fits) << small.result.reason;
  EXPECT_EQ(small.picks[0].memory_mib, 10);
  EXPECT_EQ(reason(nvidia_card("gpu", 1000, 10, 1, 991), make_request(1, 0, 1, 0)),
            "1/1 CardInsufficientMemory");
  // 100 % needs the whole memory free.
  EXPECT_EQ(reason(nvidia_card("gpu", 1000), make_request(1, 0, 100, 0)), "fits");
  EXPECT_EQ(reason(nvidia_card("gpu", 1000, 10, 1, 1), make_request(1, 0, 100, 0)),
            "1/1 CardInsufficientMemory");
}

TEST_F(NvidiaCapacity, MibRequestWinsOverAPercentage) {
  // 200 MiB free; 90 % would be 900 MiB.
  const FitOutcome mib = one(nvidia_card("gpu", 1000, 10, 1, 800), make_request(1, 200, 90, 0));
  ASSERT_TRUE(mib.result.fits) << mib.result.reason;
  EXPECT_EQ(mib.picks[0].memory_mib, 200);
  EXPECT_EQ(reason(nvidia_card("gpu", 1000, 10, 1, 800), make_request(1, 201, 90, 0)),
            "1/1 CardInsufficientMemory");
  // Even a single MiB.
  const FitOutcome one_mib = one(nvidia_card("gpu", 1000, 10, 1, 999), make_request(1, 1, 90, 0));
  ASSERT_TRUE(one_mib.result.fits) << one_mib.result.reason;
  EXPECT_EQ(one_mib.picks[0].memory_mib, 1);
}

TEST_F(NvidiaCapacity, CoresExactlyFreeFitOneMoreDoNot) {
  // One task holds 50 of 100 cores.
  const FitOutcome exact = one(nvidia_card("gpu", 8192, 10, 1, 0, 50), make_request(1, 100, 0, 50));
  ASSERT_TRUE(exact.result.fits) << exact.result.reason;
  EXPECT_EQ(exact.picks[0].cores, 50);
  EXPECT_EQ(reason(nvidia_card("gpu", 8192, 10, 1, 0, 50), make_request(1, 100, 0, 51)),
            "1/1 CardInsufficientCore");
  EXPECT_EQ(reason(nvidia_card("gpu", 8192, 10, 1, 0, 51), make_request(1, 100, 0, 50)),
            "1/1 CardInsufficientCore");
}

TEST_F(NvidiaCapacity, CoresAboveOneHundredCountAsOneHundred) {
  const FitOutcome idle = one(nvidia_card("gpu", 8192), make_request(1, 100, 0, 101));
  ASSERT_TRUE(idle.result.fits) << idle.result.reason;
  EXPECT_EQ(idle.picks[0].cores, 100);
  // 100 cores against 99 free.
  EXPECT_EQ(reason(nvidia_card("gpu", 8192, 10, 1, 0, 1), make_request(1, 100, 0, 101)),
            "1/1 CardInsufficientCore");
}

TEST_F(NvidiaCapacity, SplitCountBoundsTheTasksOnACard) {
  // Split count 3: two tasks leave one slot, three leave none.
  EXPECT_EQ(reason(nvidia_card("gpu", 8192, 3, 2, 200, 20), make_request(1, 100, 0, 10)), "fits");
  EXPECT_EQ(reason(nvidia_card("gpu", 8192, 3, 3, 300, 30), make_request(1, 100, 0, 10)),
            "1/1 CardTimeSlicingExhausted");
  EXPECT_EQ(reason(nvidia_card("gpu", 8192, 3, 4, 400, 40), make_request(1, 100, 0, 10)),
            "1/1 CardTimeSlicingExhausted");
  // Split count 1: one task per card.
  EXPECT_EQ(reason(nvidia_card("gpu", 8192, 1, 0), make_request(1, 100, 0, 10)), "fits");
  EXPECT_EQ(reason(nvidia_card("gpu", 8192, 1, 1, 100, 10), make_request(1, 100, 0, 10)),
            "1/1 CardTimeSlicingExhausted");
}

TEST_F(NvidiaCapacity, HundredCoresNeedAnIdleCard) {
  // One task on the card holds memory but no cores: a 100-core request
  // still may not join it; 99 cores may.
  EXPECT_EQ(reason(nvidia_card("gpu", 8192, 10, 1, 100, 0), make_request(1, 100, 0, 100)),
            "1/1 ExclusiveDeviceAllocateConflict");
  EXPECT_EQ(reason(nvidia_card("gpu", 8192, 10, 1, 100, 0), make_request(1, 100, 0, 99)), "fits");
  EXPECT_EQ(reason(nvidia_card("gpu", 8192), make_request(1, 100, 0, 100)), "fits");
}

TEST_F(NvidiaCapacity, AnExclusiveUserLeavesNothingToShare) {
  // One task holds all 100 cores.
  const DeviceState taken = nvidia_card("gpu", 8192, 10, 1, 1000, 100);
  EXPECT_EQ(reason(taken, make_request(1, 100, 0, 1)), "1/1 CardInsufficientCore");
  EXPECT_EQ(reason(taken, make_request(1, 100, 0, 0)), "1/1 CardComputeUnitsExhausted");
  // One core left: a 1-core task and a 0-core task both fit.
  const DeviceState one_left = nvidia_card("gpu", 8192, 10, 1, 1000, 99);
  EXPECT_EQ(reason(one_left, make_request(1, 100, 0, 1)), "fits");
  EXPECT_EQ(reason(one_left, make_request(1, 100, 0, 0)), "fits");
}

TEST_F(NvidiaCapacity, EveryCardOfAMultiCardRequestMustFit) {
  // Two cards with 512 MiB free each: two × 512 fit, two × 513 do not, and
  // a card one MiB short turns the pair into one pick.
  const std::vector<DeviceState> pair = {half_used(512), half_used(512)};
  EXPECT_TRUE(run_fit(dut_, pair, make_request(2, 512, 0, 0)).result.fits);
  EXPECT_EQ(run_fit(dut_, pair, make_request(2, 513, 0, 0)).result.reason,
            "2/2 CardInsufficientMemory");
  EXPECT_EQ(
      run_fit(dut_, {half_used(512), half_used(513)}, make_request(2, 512, 0, 0)).result.reason,
      "1/2 AllocatedCardsInsufficientRequest, 1/2 CardInsufficientMemory");
}

}  // namespace
}  // namespace hami::testing
