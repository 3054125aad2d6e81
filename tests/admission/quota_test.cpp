#include "admission/quota.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace hami::admission {
namespace {

hami_device_request req(int32_t count, int64_t memory, int32_t cores = 0) {
  return {sizeof(hami_device_request), count, memory, 0, cores, 0};
}

// HAMi's TestFitResourceQuota namespace: memory used 1000 of 2000, cores 200 of 400.
NamespaceQuota hami_test_namespace() {
  NamespaceQuota q;
  q.hard = {{"nvidia.com/gpumem", 2000}, {"nvidia.com/gpucores", 400}};
  q.used = {{"nvidia.com/gpumem", 1000}, {"nvidia.com/gpucores", 200}};
  return q;
}

const QuotaResources kNvidia{"nvidia.com/gpumem", "nvidia.com/gpucores", 1};

std::optional<std::string> verdict(const std::vector<hami_device_request>& containers,
                                   size_t init_count,
                                   const NamespaceQuota& q = hami_test_namespace(),
                                   const QuotaResources& r = kNvidia) {
  return quota_violation(q, r, pod_demand(containers, init_count));
}

TEST(QuotaDemand, AppContainersAddUpInitContainersTakeTheLargest) {
  const std::vector<hami_device_request> pod = {req(1, 800, 10), req(1, 700, 50), req(2, 100, 5),
                                                req(0, 9999, 99), req(1, 300, 0)};
  const QuotaDemand d = pod_demand(pod, 2);
  EXPECT_EQ(d.memory_mib, 800);  // max(init 800, app 2×100 + 300 = 500)
  EXPECT_EQ(d.cores, 50);        // max(init 50, app 10)
  const QuotaDemand app_only = pod_demand(pod, 0);
  EXPECT_EQ(app_only.memory_mib, 800 + 700 + 200 + 300);
  EXPECT_EQ(app_only.cores, 10 + 50 + 10);
  EXPECT_TRUE(pod_demand({}, 0).empty());
}

TEST(QuotaDemand, SaturatesInsteadOfOverflowing) {
  const auto big = std::numeric_limits<int64_t>::max() / 2;
  const QuotaDemand d = pod_demand(std::vector{req(3, big), req(1, big), req(1, -5, -5)}, 0);
  EXPECT_EQ(d.memory_mib, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(d.cores, 0);
}

// The cases of HAMi's TestFitResourceQuota (reference §8.1).
TEST(QuotaCheck, HamiFitResourceQuotaCases) {
  EXPECT_EQ(verdict({req(1, 100)}, 0), std::nullopt);
  EXPECT_EQ(verdict({req(1, 1024)}, 0),
            "nvidia.com/gpumem used 1000 + requested 1024 > limit 2000");
  EXPECT_EQ(verdict({req(2, 1024)}, 0),
            "nvidia.com/gpumem used 1000 + requested 2048 > limit 2000");
  EXPECT_EQ(verdict({req(2, 400)}, 0), std::nullopt);
  EXPECT_EQ(verdict({req(1, 800), req(1, 800), req(1, 500)}, 2), std::nullopt);
  EXPECT_EQ(verdict({req(1, 1500), req(1, 500)}, 1),
            "nvidia.com/gpumem used 1000 + requested 1500 > limit 2000");
  EXPECT_EQ(verdict({req(1, 100, 201)}, 0),
            "nvidia.com/gpucores used 200 + requested 201 > limit 400");
  EXPECT_EQ(verdict({req(2, 100, 100)}, 0), std::nullopt);  // 200 + 200 = 400 fits exactly
}

TEST(QuotaCheck, OnlyExplicitLimitsCount) {
  NamespaceQuota memory_only;
  memory_only.hard = {{"nvidia.com/gpumem", 2000}};
  memory_only.used = {{"nvidia.com/gpucores", 100000}};
  EXPECT_EQ(verdict({req(1, 2000, 100)}, 0, memory_only), std::nullopt);
  EXPECT_EQ(verdict({req(1, 2001, 100)}, 0, memory_only),
            "nvidia.com/gpumem used 0 + requested 2001 > limit 2000");
  EXPECT_EQ(verdict({req(1, 1 << 30, 100)}, 0, NamespaceQuota{}), std::nullopt);
}

TEST(QuotaCheck, ZeroLimitBlocksAnyDemandButNotNoDemand) {
  NamespaceQuota zero;
  zero.hard = {{"nvidia.com/gpumem", 0}};
  EXPECT_TRUE(verdict({req(1, 1)}, 0, zero).has_value());
  EXPECT_EQ(verdict({req(1, 0, 30)}, 0, zero), std::nullopt);
}

TEST(QuotaCheck, MemoryFactorScalesTheLimit) {
  NamespaceQuota q;
  q.hard = {{"vendor/mem", 10}};
  q.used = {{"vendor/mem", 8 * 1024}};
  const QuotaResources factor{"vendor/mem", "", 1024};
  EXPECT_EQ(verdict({req(1, 2 * 1024)}, 0, q, factor), std::nullopt);
  EXPECT_EQ(verdict({req(1, 2 * 1024 + 1)}, 0, q, factor),
            "vendor/mem used 8192 + requested 2049 > limit 10 x memory factor 1024");
}

// Each limit exactly reached fits; one unit more is denied.
TEST(QuotaCheck, ExactlyAtTheLimitFitsOneUnitMoreDoesNot) {
  EXPECT_EQ(verdict({req(1, 1000)}, 0), std::nullopt);
  EXPECT_EQ(verdict({req(1, 1001)}, 0),
            "nvidia.com/gpumem used 1000 + requested 1001 > limit 2000");
  EXPECT_EQ(verdict({req(2, 500)}, 0), std::nullopt);
  EXPECT_EQ(verdict({req(2, 501)}, 0), "nvidia.com/gpumem used 1000 + requested 1002 > limit 2000");
  EXPECT_EQ(verdict({req(1, 100, 200)}, 0), std::nullopt);
  EXPECT_EQ(verdict({req(1, 100, 201)}, 0),
            "nvidia.com/gpucores used 200 + requested 201 > limit 400");
  // An init container's peak against the same limit.
  EXPECT_EQ(verdict({req(1, 1000), req(1, 500)}, 1), std::nullopt);
  EXPECT_EQ(verdict({req(1, 1001), req(1, 500)}, 1),
            "nvidia.com/gpumem used 1000 + requested 1001 > limit 2000");
}

TEST(QuotaCheck, ZeroLimitsNameWhatWasAsked) {
  NamespaceQuota zero;
  zero.hard = {{"nvidia.com/gpumem", 0}, {"nvidia.com/gpucores", 0}};
  EXPECT_EQ(verdict({req(1, 1)}, 0, zero), "nvidia.com/gpumem used 0 + requested 1 > limit 0");
  EXPECT_EQ(verdict({req(1, 0, 1)}, 0, zero), "nvidia.com/gpucores used 0 + requested 1 > limit 0");
  EXPECT_EQ(verdict({req(1, 0, 0)}, 0, zero), std::nullopt);
}

TEST(QuotaCheck, MemoryFactorTwoAtTheBoundary) {
  NamespaceQuota q;
  q.hard = {{"nvidia.com/gpumem", 1000}, {"nvidia.com/gpucores", 100}};
  q.used = {{"nvidia.com/gpumem", 1000}};
  const QuotaResources factor2{"nvidia.com/gpumem", "nvidia.com/gpucores", 2};
  EXPECT_EQ(verdict({req(1, 1000)}, 0, q, factor2), std::nullopt);
  EXPECT_EQ(verdict({req(1, 1001)}, 0, q, factor2),
            "nvidia.com/gpumem used 1000 + requested 1001 > limit 1000 x memory factor 2");
  // The factor scales memory only.
  EXPECT_EQ(verdict({req(1, 0, 100)}, 0, q, factor2), std::nullopt);
  EXPECT_EQ(verdict({req(1, 0, 101)}, 0, q, factor2),
            "nvidia.com/gpucores used 0 + requested 101 > limit 100");
}

TEST(QuotaCheck, AmdResourcesAtTheBoundary) {
  NamespaceQuota q;
  q.hard = {{"amd.com/gpumem", 8192}, {"amd.com/gpucores", 100}};
  q.used = {{"amd.com/gpumem", 4096}, {"amd.com/gpucores", 50}};
  const QuotaResources amd{"amd.com/gpumem", "amd.com/gpucores", 1};
  EXPECT_EQ(verdict({req(1, 4096, 50)}, 0, q, amd), std::nullopt);
  EXPECT_EQ(verdict({req(1, 4097, 50)}, 0, q, amd),
            "amd.com/gpumem used 4096 + requested 4097 > limit 8192");
  EXPECT_EQ(verdict({req(1, 4096, 51)}, 0, q, amd),
            "amd.com/gpucores used 50 + requested 51 > limit 100");
  // NVIDIA's limits do not hold AMD demand.
  EXPECT_EQ(verdict({req(1, 1 << 20, 100)}, 0, hami_test_namespace(), amd), std::nullopt);
}

TEST(QuotaCheck, NegativeUsageCountsAsZero) {
  NamespaceQuota q;
  q.hard = {{"nvidia.com/gpumem", 100}};
  q.used = {{"nvidia.com/gpumem", -500}};
  EXPECT_EQ(verdict({req(1, 100)}, 0, q), std::nullopt);
  EXPECT_TRUE(verdict({req(1, 101)}, 0, q).has_value());
}

// A namespace already over one limit (a quota lowered under running pods)
// refuses a pod asking nothing of that resource, as HAMi's check does: both
// limits are checked whenever the pod asks anything of the vendor.
TEST(QuotaCheck, ANamespaceOverOneLimitRefusesAPodAskingOnlyTheOther) {
  NamespaceQuota q;
  q.hard = {{"nvidia.com/gpumem", 2000}, {"nvidia.com/gpucores", 200}};
  q.used = {{"nvidia.com/gpumem", 0}, {"nvidia.com/gpucores", 300}};
  EXPECT_EQ(verdict({req(1, 100)}, 0, q), "nvidia.com/gpucores used 300 + requested 0 > limit 200");
  q.used["nvidia.com/gpucores"] = 200;
  EXPECT_EQ(verdict({req(1, 100)}, 0, q), std::nullopt);
}

// The rule admission and filter share.
TEST(QuotaRule, UsedPlusDemandWithinTheScaledLimit) {
  EXPECT_TRUE(within_limit(2000, 1, 1000, 1000));
  EXPECT_FALSE(within_limit(2000, 1, 1000, 1001));
  EXPECT_TRUE(within_limit(1000, 2, 1000, 1000));
  EXPECT_FALSE(within_limit(1000, 2, 1000, 1001));
  EXPECT_FALSE(within_limit(200, 1, 300, 0));
  EXPECT_TRUE(within_limit(0, 1, 0, 0));
  EXPECT_FALSE(within_limit(0, 1, 0, 1));
  EXPECT_TRUE(within_limit(100, 1, -500, 100));
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_TRUE(within_limit(kMax, 4, kMax, 0));
  EXPECT_FALSE(within_limit(kMax - 1, 1, kMax, 1));
  EXPECT_EQ(memory_limit_scale(0), 1);
  EXPECT_EQ(memory_limit_scale(1), 1);
  EXPECT_EQ(memory_limit_scale(3), 3);
}

}  // namespace
}  // namespace hami::admission
