// The namespace quota check inside the scheduler's fit (HAMi §7.3) at its
// boundaries: memory fails when used + demand > limit × memory factor
// (factor only when > 1), cores when used + demand > limit; only limits
// a ResourceQuota set count, and an explicit 0 blocks any demand.
#include "scheduling/quota_limits.hpp"

#include <gtest/gtest.h>

namespace {

using hami::scheduling::quota_allows;
using hami::scheduling::QuotaLimits;
using hami::scheduling::VendorTotals;

QuotaLimits memory_limit(int64_t mib) {
  QuotaLimits l;
  l.memory_mib = mib;
  return l;
}

QuotaLimits cores_limit(int64_t cores) {
  QuotaLimits l;
  l.cores = cores;
  return l;
}

TEST(QuotaAllows, MemoryExactlyAtTheLimitFitsOneMibMoreDoesNot) {
  const VendorTotals used{1000, 0};
  EXPECT_TRUE(quota_allows(memory_limit(2000), 1, used, 1000, 0));
  EXPECT_FALSE(quota_allows(memory_limit(2000), 1, used, 1001, 0));
  EXPECT_FALSE(quota_allows(memory_limit(2000), 1, VendorTotals{1001, 0}, 1000, 0));
}

TEST(QuotaAllows, CoresExactlyAtTheLimitFitOneMoreDoNot) {
  const VendorTotals used{0, 30};
  EXPECT_TRUE(quota_allows(cores_limit(100), 1, used, 0, 70));
  EXPECT_FALSE(quota_allows(cores_limit(100), 1, used, 0, 71));
  EXPECT_FALSE(quota_allows(cores_limit(100), 1, VendorTotals{0, 31}, 0, 70));
}

TEST(QuotaAllows, ExplicitZeroLimitBlocksAnyDemandButNotNone) {
  EXPECT_FALSE(quota_allows(memory_limit(0), 1, {}, 1, 0));
  EXPECT_TRUE(quota_allows(memory_limit(0), 1, {}, 0, 50));
  EXPECT_FALSE(quota_allows(cores_limit(0), 1, {}, 1000, 1));
  EXPECT_TRUE(quota_allows(cores_limit(0), 1, {}, 1000, 0));
}

TEST(QuotaAllows, UnsetLimitsAlwaysFit) {
  EXPECT_TRUE(quota_allows(QuotaLimits{}, 1, VendorTotals{1 << 30, 1 << 20}, 1 << 30, 1 << 20));
  // A memory limit says nothing about cores, and the other way round.
  EXPECT_TRUE(quota_allows(memory_limit(100), 1, {}, 100, 5000));
  EXPECT_TRUE(quota_allows(cores_limit(100), 1, {}, 5000, 100));
}

TEST(QuotaAllows, MemoryFactorScalesTheMemoryLimitOnly) {
  // Factor 2: the limit of 1000 is 2000 MiB on the cards.
  EXPECT_TRUE(quota_allows(memory_limit(1000), 2, VendorTotals{1000, 0}, 1000, 0));
  EXPECT_FALSE(quota_allows(memory_limit(1000), 2, VendorTotals{1000, 0}, 1001, 0));
  // Factors 1 and below leave the limit as it is.
  for (const int32_t factor : {1, 0, -3}) {
    EXPECT_TRUE(quota_allows(memory_limit(1000), factor, {}, 1000, 0)) << factor;
    EXPECT_FALSE(quota_allows(memory_limit(1000), factor, {}, 1001, 0)) << factor;
  }
  // Cores are never scaled.
  EXPECT_FALSE(quota_allows(cores_limit(100), 2, {}, 0, 101));
}

}  // namespace

namespace {

// A limit as large as int64 holds ("4Ei" of memory, memoryFactor 2): the
// product saturates instead of overflowing into a negative limit that
// refused every pod of the namespace (admission already saturated).
TEST(QuotaAllows, HugeLimitTimesTheMemoryFactorSaturates) {
  constexpr int64_t kHuge = int64_t{1} << 62;
  EXPECT_TRUE(quota_allows(memory_limit(kHuge), 2, VendorTotals{}, 1, 0));
  EXPECT_TRUE(quota_allows(memory_limit(kHuge), 4, VendorTotals{kHuge, 0}, kHuge, 0));
  EXPECT_TRUE(quota_allows(cores_limit(INT64_MAX), 1, VendorTotals{0, INT64_MAX}, 0, 0));
  EXPECT_FALSE(quota_allows(cores_limit(INT64_MAX - 1), 1, VendorTotals{0, INT64_MAX}, 0, 1));
}

}  // namespace
