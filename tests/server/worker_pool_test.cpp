// The worker pool starts threads only when tasks need them, never more than
// its maximum, and runs every task submitted before it is destroyed.
#include "server/worker_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <vector>

namespace hami::server {
namespace {

using namespace std::chrono_literals;

TEST(WorkerPool, StartsThreadsOnDemandUpToItsMaximum) {
  std::atomic<int> done{0};
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  {
    WorkerPool pool(3);
    EXPECT_EQ(pool.threads(), 0) << "no task, no thread";
    for (int i = 0; i < 10; ++i) {
      pool.submit([&] {
        released.wait_for(10s);
        ++done;
      });
    }
    EXPECT_EQ(pool.threads(), 3) << "ten blocked tasks, three threads";
    release.set_value();
  }  // the destructor waits for the queued tasks as well
  EXPECT_EQ(done.load(), 10);
}

TEST(WorkerPool, AnIdleThreadIsReusedRatherThanANewOneStarted) {
  WorkerPool pool(8);
  for (int i = 0; i < 20; ++i) {
    std::promise<void> ran;
    auto finished = ran.get_future();
    pool.submit([&ran] { ran.set_value(); });
    ASSERT_EQ(finished.wait_for(5s), std::future_status::ready);
    // Let the thread return to waiting before the next task.
    const auto until = std::chrono::steady_clock::now() + 5s;
    while (std::chrono::steady_clock::now() < until && pool.idle() != pool.threads())
      std::this_thread::sleep_for(1ms);
  }
  EXPECT_EQ(pool.threads(), 1);
}

}  // namespace
}  // namespace hami::server
