// WorkPool and the parallel candidate walk: every chunk exactly once, a slot
// never runs two chunks at a time, and a filter over many nodes gives the
// same answer with and without helper threads.
#include "scheduling/work_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "scheduling_env.hpp"

namespace {

using namespace hami;
using namespace hami::testing;

TEST(WorkPool, RunsEveryChunkOnceAndSlotsNeverOverlap) {
  scheduling::WorkPool pool(3);
  ASSERT_EQ(pool.slots(), 4u);
  for (int round = 0; round < 50; ++round) {
    std::vector<std::atomic<int>> seen(257);
    std::vector<std::atomic<int>> busy(pool.slots());
    std::atomic<int> overlaps{0};
    pool.run(seen.size(), [&](size_t chunk, size_t slot) {
      if (busy[slot].fetch_add(1) != 0)
        overlaps++;
      seen[chunk]++;
      busy[slot]--;
    });
    for (const auto& s : seen)
      ASSERT_EQ(s.load(), 1);
    ASSERT_EQ(overlaps.load(), 0);
  }
}

TEST(WorkPool, ConcurrentCallersShareTheWorkers) {
  scheduling::WorkPool pool(2);
  std::atomic<int> total{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&] {
      for (int round = 0; round < 25; ++round) {
        pool.run(64, [&](size_t, size_t) { total++; });
      }
    });
  }
  for (auto& t : callers)
    t.join();
  EXPECT_EQ(total.load(), 4 * 25 * 64);
}

TEST(WorkPool, WithoutWorkersTheCallerDoesEverything) {
  scheduling::WorkPool pool(0);
  size_t sum = 0;
  pool.run(10, [&](size_t chunk, size_t slot) {
    EXPECT_EQ(slot, 0u);
    sum += chunk;
  });
  EXPECT_EQ(sum, 45u);
  pool.run(0, [&](size_t, size_t) { ADD_FAILURE(); });
}

TEST(ParallelFilter, SameAnswerWithAndWithoutHelpers) {
  // 700 candidates (six chunks): every fourth node is too small, every
  // fifth is unknown.
  std::string yaml = "kind: List\nitems:\n";
  std::vector<std::string> names;
  for (int n = 0; n < 700; ++n) {
    const std::string name = "n" + std::to_string(n);
    names.push_back(name);
    if (n % 5 == 4)
      continue;
    yaml += nvidia_node(name, 2, n % 4 == 3 ? 1000 : 8000);
  }
  const auto pod = pod_from_json(
      pod_json("ns", "p", "u", {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "3000"}}}));
  const auto run = [&](size_t workers) {
    scheduling::SchedulerOptions options;
    options.filter_workers = workers;
    SchedulingEnv env(yaml, options);
    return env.scheduler->filter(pod, names);
  };
  const auto serial = run(0);
  const auto parallel = run(3);
  // 140 unknown (n % 5 == 4); 175 small, 35 of them unknown.
  EXPECT_EQ(serial.fit.size(), 700u - 140u - (175u - 35u));
  EXPECT_EQ(parallel.fit, serial.fit);
  EXPECT_EQ(parallel.failed, serial.failed);
  EXPECT_EQ(parallel.unresolvable, serial.unresolvable);
  EXPECT_EQ(serial.unresolvable.size(), 140u);
  EXPECT_EQ(serial.failed.at("n3"), "2/2 CardInsufficientMemory");
}

}  // namespace
