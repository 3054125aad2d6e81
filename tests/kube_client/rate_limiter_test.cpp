// RateLimiter: exact waits under a fixed and an advancing fake clock, and
// distinct reservations under concurrency.
#include "kube/rate_limiter.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <thread>
#include <vector>

namespace hami::kube {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;

TEST(RateLimiter, FixedClockReservesConsecutiveSlots) {
  std::vector<milliseconds> slept;
  const auto t0 = std::chrono::steady_clock::time_point(1h);
  RateLimiter limiter(
      10.0, 2, [&](milliseconds d) { slept.push_back(d); }, [&] { return t0; });
  std::vector<milliseconds> waits;
  for (int i = 0; i < 5; ++i)
    waits.push_back(limiter.acquire());
  EXPECT_EQ(waits, (std::vector<milliseconds>{0ms, 0ms, 100ms, 200ms, 300ms}));
  EXPECT_EQ(slept, (std::vector<milliseconds>{100ms, 200ms, 300ms}));
}

TEST(RateLimiter, SleepingAdvancesTimeAndIdleRefillsTheBurst) {
  auto now = std::chrono::steady_clock::time_point(1h);
  std::vector<milliseconds> slept;
  RateLimiter limiter(
      4.0, 3,
      [&](milliseconds d) {
        slept.push_back(d);
        now += d;
      },
      [&] { return now; });
  for (int i = 0; i < 6; ++i)
    limiter.acquire();
  EXPECT_EQ(slept, (std::vector<milliseconds>{250ms, 250ms, 250ms}));
  now += 10s;  // idle: the bucket fills up to the burst, not beyond
  slept.clear();
  for (int i = 0; i < 4; ++i)
    limiter.acquire();
  EXPECT_EQ(slept, (std::vector<milliseconds>{250ms}));
}

TEST(RateLimiter, ZeroQpsIsUnlimited) {
  int sleeps = 0;
  RateLimiter limiter(0.0, 1, [&](milliseconds) { ++sleeps; });
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(limiter.acquire(), 0ms);
  EXPECT_EQ(sleeps, 0);
}

TEST(RateLimiter, ConcurrentCallersGetDistinctSlots) {
  const auto t0 = std::chrono::steady_clock::time_point(1h);
  std::mutex mu;
  std::vector<milliseconds> slept;
  RateLimiter limiter(
      100.0, 10,
      [&](milliseconds d) {
        std::lock_guard lock(mu);
        slept.push_back(d);
      },
      [&] { return t0; });
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 25; ++i)
        limiter.acquire();
    });
  }
  for (auto& t : threads)
    t.join();
  std::sort(slept.begin(), slept.end());
  std::vector<milliseconds> expected;
  for (int k = 1; k <= 90; ++k)
    expected.push_back(milliseconds(10 * k));
  EXPECT_EQ(slept, expected);
}

}  // namespace
}  // namespace hami::kube
