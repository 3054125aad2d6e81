// NVIDIA container requests through nvidia.so's ABI: HAMi §5.1 and
// TestGenerateResourceRequests{,_MemoryFactor,_DefaultMemory}.
#include <gtest/gtest.h>

#include "device_under_test.hpp"
#include "k8s_views.hpp"

namespace hami::testing {
namespace {

struct Want {
  std::int32_t count, memory_percent, cores;
  std::int64_t memory_mib;
};

hami_device_request request(const DeviceUnderTest& dut, Pairs limits, Pairs requests = {}) {
  PodFixture pod;
  pod.container({"main", false, std::move(limits), std::move(requests), {}});
  return dut.plugin().container_request(pod.view(), 0).request;
}

void expect(const hami_device_request& r, Want w, const std::string& what) {
  EXPECT_EQ(r.count, w.count) << what;
  EXPECT_EQ(r.memory_mib, w.memory_mib) << what;
  EXPECT_EQ(r.memory_percent, w.memory_percent) << what;
  EXPECT_EQ(r.cores, w.cores) << what;
}

TEST(NvidiaRequests, GenerateResourceRequests) {
  const DeviceUnderTest dut("nvidia");
  struct Case {
    const char* name;
    Pairs limits;
    Pairs requests;
    Want want;
  };
  const std::vector<Case> cases = {
      {"gpu count only defaults to 100% memory", {{"nvidia.com/gpu", "1"}}, {}, {1, 100, 0, 0}},
      {"gpu count + explicit memory",
       {{"nvidia.com/gpu", "2"}, {"nvidia.com/gpumem", "4096"}},
       {},
       {2, 0, 0, 4096}},
      {"gpu count + memory percentage",
       {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem-percentage", "50"}},
       {},
       {1, 50, 0, 0}},
      {"percentage above 100 clamps",
       {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem-percentage", "150"}},
       {},
       {1, 100, 0, 0}},
      {"huge percentage clamps without wrapping",
       {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem-percentage", "4294967346"}},
       {},
       {1, 100, 0, 0}},
      {"percentage 101 clamps to 100",
       {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem-percentage", "101"}},
       {},
       {1, 100, 0, 0}},
      {"explicit cores 0",
       {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpucores", "0"}},
       {},
       {1, 100, 0, 0}},
      {"explicit cores 50",
       {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpucores", "50"}},
       {},
       {1, 100, 50, 0}},
      {"explicit cores 120 kept (Fit clamps)",
       {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpucores", "120"}},
       {},
       {1, 100, 120, 0}},
      {"no gpu resource", {}, {}, {0, 0, 0, 0}},
      {"requests fallback", {}, {{"nvidia.com/gpu", "1"}}, {1, 100, 0, 0}},
      {"percentage 0 is unset",
       {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem-percentage", "0"}},
       {},
       {1, 100, 0, 0}},
      {"percentage 0 in requests is unset",
       {},
       {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem-percentage", "0"}},
       {1, 100, 0, 0}},
      {"negative percentage is unset",
       {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem-percentage", "-1"}},
       {},
       {1, 100, 0, 0}},
      {"percentage 0 + explicit memory: memory wins",
       {{"nvidia.com/gpu", "1"},
        {"nvidia.com/gpumem", "2000"},
        {"nvidia.com/gpumem-percentage", "0"}},
       {},
       {1, 0, 0, 2000}},
      {"count 0 is no request", {{"nvidia.com/gpu", "0"}}, {}, {0, 0, 0, 0}},
      {"quantity forms: 4k MiB",
       {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "4k"}},
       {},
       {1, 0, 0, 4000}},
      {"quantity forms: 2e3 MiB",
       {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "2e3"}},
       {},
       {1, 0, 0, 2000}},
      {"quantity forms: 2000m cards", {{"nvidia.com/gpu", "2000m"}}, {}, {2, 100, 0, 0}},
      {"limits win over requests",
       {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "1000"}},
       {{"nvidia.com/gpu", "3"}, {"nvidia.com/gpumem", "3000"}},
       {1, 0, 0, 1000}},
  };
  for (const Case& c : cases)
    expect(request(dut, c.limits, c.requests), c.want, c.name);
}

TEST(NvidiaRequests, UnusableValuesAreErrorsWithTheValueNamed) {
  const DeviceUnderTest dut("nvidia");
  struct Case {
    Pairs limits;
    const char* message;
  };
  const std::vector<Case> cases = {
      {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "16Gi"}},
       "invalid nvidia.com/gpumem value 16Gi in container main: must be an integer number of MiB "
       "between 0 and 2147483647"},
      {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "16.5"}},
       "invalid nvidia.com/gpumem value 16.5 in container main: must be an integer number of MiB "
       "between 0 and 2147483647"},
      {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "-1"}},
       "invalid nvidia.com/gpumem value -1 in container main: must be an integer number of MiB "
       "between 0 and 2147483647"},
      {{{"nvidia.com/gpu", "1.5"}},
       "invalid nvidia.com/gpu value 1.5 in container main: must be an integer between 0 and "
       "2147483647"},
      {{{"nvidia.com/gpu", "-1"}},
       "invalid nvidia.com/gpu value -1 in container main: must be an integer between 0 and "
       "2147483647"},
      {{{"nvidia.com/gpu", "2147483648"}},
       "invalid nvidia.com/gpu value 2147483648 in container main: must be an integer between 0 "
       "and "
       "2147483647"},
      {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpucores", "-50"}},
       "invalid nvidia.com/gpucores value -50 in container main: must not be negative"},
  };
  for (const Case& c : cases) {
    PodFixture pod;
    pod.container({"main", false, c.limits, {}, {}});
    // The host turns the plugin's INVALID_ARGUMENT into "no request" plus a
    // warning it logs (HAMi drops such requests silently, 7.7#8).
    const RequestResult r = dut.plugin().container_request(pod.view(), 0);
    EXPECT_EQ(r.request.count, 0) << c.message;
    EXPECT_EQ(r.warning, c.message);
  }
}

TEST(NvidiaRequests, MemoryFactorMultipliesAndBoundsMemory) {
  const DeviceUnderTest dut("nvidia", R"({"memoryFactor": 2})");
  expect(request(dut, {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "1024"}}), {1, 0, 0, 2048},
         "factor 2");
  EXPECT_EQ(request(dut, {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "1Gi"}}).count, 0);
  // The bound is INT32_MAX / factor.
  expect(request(dut, {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "1073741823"}}),
         {1, 0, 0, 2147483646}, "largest");
  EXPECT_EQ(request(dut, {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "1073741824"}}).count, 0);
  EXPECT_EQ(dut.plugin().description().memory_factor, 2);
}

TEST(NvidiaRequests, MemoryFactorZeroMeansOne) {
  const DeviceUnderTest dut("nvidia", R"({"memoryFactor": 0})");
  expect(request(dut, {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "1024"}}), {1, 0, 0, 1024},
         "factor 0");
  EXPECT_EQ(dut.plugin().description().memory_factor, 1);
}

TEST(NvidiaRequests, DefaultMemoryAndCores) {
  const DeviceUnderTest dut("nvidia", R"({"defaultMemory": 512, "defaultCores": 20})");
  expect(request(dut, {{"nvidia.com/gpu", "1"}}), {1, 0, 20, 512}, "count only");
  // A 0 percentage is unset and lands on defaultMemory, like gpumem: 0.
  expect(request(dut, {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem-percentage", "0"}}),
         {1, 0, 20, 512}, "percentage 0");
  expect(request(dut, {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "0"}}), {1, 0, 20, 512},
         "memory 0");
  expect(request(dut, {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpucores", "30"}}), {1, 0, 30, 512},
         "cores given");
}

}  // namespace
}  // namespace hami::testing
