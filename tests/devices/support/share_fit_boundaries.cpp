#include "share_fit_boundaries.hpp"

#include <gtest/gtest.h>

namespace hami::testing {

DeviceState boundary_card(const std::string& type, std::int64_t memory_mib, std::int32_t used,
                          std::int64_t used_memory, std::int32_t used_cores) {
  DeviceState d;
  d.id = "dev-0";
  d.type = type;
  d.count = 100;
  d.memory_mib = memory_mib;
  d.cores = 100;
  d.used = used;
  d.used_memory_mib = used_memory;
  d.used_cores = used_cores;
  return d;
}

namespace {

DeviceState with_count(DeviceState d, std::int32_t count) {
  d.count = count;
  return d;
}

DeviceState with_cores(DeviceState d, std::int32_t cores) {
  d.cores = cores;
  return d;
}

}  // namespace

std::vector<BoundaryCase> slot_boundary_cases(const std::string& type) {
  const auto card = [&](std::int32_t count, std::int32_t used) {
    return with_count(boundary_card(type, 8192, used), count);
  };
  const hami_device_request one = make_request(1, 0, 0, 0);
  return {
      {"split count 3, two tasks: the last slot", card(3, 2), one, 0, "fits"},
      {"split count 3, three tasks", card(3, 3), one, 0, "1/1 CardTimeSlicingExhausted"},
      {"split count 3, four tasks", card(3, 4), one, 0, "1/1 CardTimeSlicingExhausted"},
      {"split count 1, idle", card(1, 0), one, 0, "fits"},
      {"split count 1, one task", card(1, 1), one, 0, "1/1 CardTimeSlicingExhausted"},
      {"mutex, idle card", card(10, 0), one, HAMI_FIT_MUTEX, "fits"},
      {"mutex, one task", card(10, 1), one, HAMI_FIT_MUTEX, "1/1 ExclusiveDeviceAllocateConflict"},
  };
}

std::vector<BoundaryCase> share_fit_boundary_cases(const std::string& type) {
  std::vector<BoundaryCase> cases = slot_boundary_cases(type);
  const auto card = [&](std::int64_t memory, std::int32_t used = 0, std::int64_t used_memory = 0,
                        std::int32_t used_cores = 0) {
    return boundary_card(type, memory, used, used_memory, used_cores);
  };
  const auto mib = [](std::int64_t memory, std::int32_t cores = 0) {
    return make_request(1, memory, 0, cores);
  };
  const auto pct = [](std::int32_t percent) { return make_request(1, 0, percent, 0); };
  const std::vector<BoundaryCase> more = {
      // Memory in MiB (step 7).
      {"512 MiB free, 512 asked", card(1024, 1, 512), mib(512), 0, "fits", 512, 0},
      {"512 MiB free, 513 asked", card(1024, 1, 512), mib(513), 0, "1/1 CardInsufficientMemory"},
      {"511 MiB free, 512 asked", card(1024, 1, 513), mib(512), 0, "1/1 CardInsufficientMemory"},
      {"idle card, all of it asked", card(1024), mib(1024), 0, "fits", 1024, 0},
      {"idle card, one MiB more", card(1024), mib(1025), 0, "1/1 CardInsufficientMemory"},
      {"full card, one MiB asked", card(1024, 1, 1024), mib(1), 0, "1/1 CardInsufficientMemory"},
      // A MiB request wins over a percentage, even a single MiB.
      {"1 MiB free, 1 MiB or 90 % asked", card(1000, 1, 999), make_request(1, 1, 90, 0), 0, "fits",
       1, 0},
      // Memory as a percentage of the card: total × pct / 100, floored.
      {"500 MiB free, 50 % of 1000", card(1000, 1, 500), pct(50), 0, "fits", 500, 0},
      {"500 MiB free, 51 % of 1000", card(1000, 1, 500), pct(51), 0, "1/1 CardInsufficientMemory"},
      {"499 MiB free, 50 % of 1000", card(1000, 1, 501), pct(50), 0, "1/1 CardInsufficientMemory"},
      {"500 MiB free, 50 % of 1001 is 500", card(1001, 1, 501), pct(50), 0, "fits", 500, 0},
      {"10 MiB free, 1 % of 1000", card(1000, 1, 990), pct(1), 0, "fits", 10, 0},
      {"9 MiB free, 1 % of 1000", card(1000, 1, 991), pct(1), 0, "1/1 CardInsufficientMemory"},
      {"idle card, 100 %", card(1000), pct(100), 0, "fits", 1000, 0},
      {"1 MiB used, 100 %", card(1000, 1, 1), pct(100), 0, "1/1 CardInsufficientMemory"},
      {"full card, 0 MiB and 0 %", card(1000, 1, 1000), pct(0), 0, "fits", 0, 0},
      // Cores (step 8); above 100 they count as 100.
      {"50 cores free, 50 asked", card(8192, 1, 0, 50), mib(100, 50), 0, "fits", 100, 50},
      {"50 cores free, 51 asked", card(8192, 1, 0, 50), mib(100, 51), 0,
       "1/1 CardInsufficientCore"},
      {"49 cores free, 50 asked", card(8192, 1, 0, 51), mib(100, 50), 0,
       "1/1 CardInsufficientCore"},
      {"idle card, 101 cores asked", card(8192), mib(100, 101), 0, "fits", 100, 100},
      {"99 cores free, 101 asked", card(8192, 1, 0, 1), mib(100, 101), 0,
       "1/1 CardInsufficientCore"},
      // 100 cores want a card without tasks (step 9), even tasks holding no cores.
      {"one task without cores, 100 asked", card(8192, 1, 100, 0), mib(100, 100), 0,
       "1/1 ExclusiveDeviceAllocateConflict"},
      {"one task without cores, 99 asked", card(8192, 1, 100, 0), mib(100, 99), 0, "fits", 100, 99},
      {"idle card, 100 asked", card(8192), mib(100, 100), 0, "fits", 100, 100},
      // A card whose cores are all used takes no 0-core task (step 10).
      {"all cores used, 0 asked", card(8192, 1, 1000, 100), mib(100), 0,
       "1/1 CardComputeUnitsExhausted"},
      {"all cores used, 1 asked", card(8192, 1, 1000, 100), mib(100, 1), 0,
       "1/1 CardInsufficientCore"},
      {"one core left, 0 asked", card(8192, 1, 1000, 99), mib(100), 0, "fits", 100, 0},
      {"one core left, 1 asked", card(8192, 1, 1000, 99), mib(100, 1), 0, "fits", 100, 1},
      {"a card of no cores, 0 asked", with_cores(card(8192, 1, 1000), 0), mib(100), 0, "fits", 100,
       0},
  };
  cases.insert(cases.end(), more.begin(), more.end());
  return cases;
}

void expect_boundary(const DeviceUnderTest& dut, const BoundaryCase& c, Pairs annotations) {
  SCOPED_TRACE(c.name);
  const FitOutcome o = run_fit(dut, {c.device}, c.request, std::move(annotations), c.flags);
  EXPECT_EQ(o.result.fits ? "fits" : o.result.reason, c.expected);
  if (!o.result.fits || c.expected != "fits")
    return;
  ASSERT_EQ(o.picks.size(), 1u);
  EXPECT_EQ(o.picks[0].memory_mib, c.memory);
  EXPECT_EQ(o.picks[0].cores, c.cores);
}

}  // namespace hami::testing
