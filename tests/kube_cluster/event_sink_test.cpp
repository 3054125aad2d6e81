// EventSink: order, bound, failures.
#include "kube/event_sink.hpp"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <stdexcept>

namespace hami::kube {
namespace {

using namespace std::chrono_literals;

cluster::Event named(std::string name) {
  cluster::Event e;
  e.name = std::move(name);
  e.reason = "R";
  return e;
}

TEST(EventSink, PostsInOrderAndDropsWhenFull) {
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  std::vector<std::string> posted;
  EventSink sink(
      [&](const cluster::Event& e) {
        std::unique_lock lock(mu);
        posted.push_back(e.name);
        cv.notify_all();
        // The first post blocks until the test lets it go.
        ASSERT_TRUE(cv.wait_for(lock, 5s, [&] { return release; }));
      },
      2, nullptr);
  sink.submit(named("e1"));
  {
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, 5s, [&] { return !posted.empty(); }));
  }
  sink.submit(named("e2"));
  sink.submit(named("e3"));
  sink.submit(named("e4"));  // queue (2) full while e1 is in flight
  EXPECT_EQ(sink.dropped(), 1U);
  EXPECT_FALSE(sink.drain(20ms));
  {
    std::lock_guard lock(mu);
    release = true;
  }
  cv.notify_all();
  ASSERT_TRUE(sink.drain(5s));
  std::lock_guard lock(mu);
  EXPECT_EQ(posted, (std::vector<std::string>{"e1", "e2", "e3"}));
}

TEST(EventSink, FailuresAreSwallowed) {
  std::mutex mu;
  int calls = 0;
  EventSink sink(
      [&](const cluster::Event&) {
        std::lock_guard lock(mu);
        ++calls;
        throw std::runtime_error("server says no");
      },
      10, nullptr);
  sink.submit(named("a"));
  sink.submit(named("b"));
  ASSERT_TRUE(sink.drain(5s));
  std::lock_guard lock(mu);
  EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace hami::kube
