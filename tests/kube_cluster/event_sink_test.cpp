// EventSink: order, bound, failures, the stamp of each event, maintenance.
#include "kube/event_sink.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <stdexcept>

#include "recording_watcher.hpp"

namespace hami::kube {
namespace {

using namespace std::chrono_literals;
using Time = std::chrono::system_clock::time_point;

cluster::Event named(std::string name) {
  cluster::Event e;
  e.name = std::move(name);
  e.reason = "R";
  return e;
}

// Hands each call to the test's functions.
class TestRecorder final : public EventRecorder {
 public:
  std::function<void(const cluster::Event&, Time)> on_record;
  std::function<void()> on_maintain;
  std::chrono::milliseconds period{0};

  void record(const cluster::Event& event, Time when) override { on_record(event, when); }
  void maintain() override {
    if (on_maintain)
      on_maintain();
  }
  std::chrono::milliseconds maintenance_period() const override { return period; }
};

TEST(EventSink, RecordsInOrderAndDropsWhenFull) {
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  std::vector<std::string> recorded;
  auto recorder = std::make_unique<TestRecorder>();
  recorder->on_record = [&](const cluster::Event& e, Time) {
    std::unique_lock lock(mu);
    recorded.push_back(e.name);
    cv.notify_all();
    // The first event blocks until the test lets it go.
    ASSERT_TRUE(cv.wait_for(lock, 5s, [&] { return release; }));
  };
  EventSink sink(std::move(recorder), 2, nullptr);
  sink.submit(named("e1"));
  {
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, 5s, [&] { return !recorded.empty(); }));
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
  EXPECT_EQ(recorded, (std::vector<std::string>{"e1", "e2", "e3"}));
}

TEST(EventSink, FailuresAreSwallowed) {
  std::mutex mu;
  int calls = 0;
  auto recorder = std::make_unique<TestRecorder>();
  recorder->on_record = [&](const cluster::Event&, Time) {
    std::lock_guard lock(mu);
    ++calls;
    throw std::runtime_error("server says no");
  };
  EventSink sink(std::move(recorder), 10, nullptr);
  sink.submit(named("a"));
  sink.submit(named("b"));
  ASSERT_TRUE(sink.drain(5s));
  std::lock_guard lock(mu);
  EXPECT_EQ(calls, 2);
}

// Each event carries the clock's time when it was submitted, not when the
// sink's thread gets to it.
TEST(EventSink, StampsEventsWhenSubmitted) {
  std::mutex mu;
  std::vector<Time> stamps;
  auto recorder = std::make_unique<TestRecorder>();
  recorder->on_record = [&](const cluster::Event&, Time when) {
    std::lock_guard lock(mu);
    stamps.push_back(when);
  };
  std::atomic<int64_t> seconds{1000};
  EventSink sink(std::move(recorder), 10, nullptr,
                 [&] { return Time(std::chrono::seconds(seconds.load())); });
  sink.submit(named("a"));
  seconds = 2000;
  sink.submit(named("b"));
  ASSERT_TRUE(sink.drain(5s));
  std::lock_guard lock(mu);
  EXPECT_EQ(stamps, (std::vector<Time>{Time(1000s), Time(2000s)}));
}

TEST(EventSink, RunsTheRecordersMaintenance) {
  std::atomic<int> maintained{0};
  auto recorder = std::make_unique<TestRecorder>();
  recorder->on_record = [](const cluster::Event&, Time) {};
  recorder->on_maintain = [&] { ++maintained; };
  recorder->period = 10ms;
  EventSink sink(std::move(recorder), 10, nullptr);
  EXPECT_TRUE(testing::eventually([&] { return maintained.load() >= 2; }));
}

}  // namespace
}  // namespace hami::kube
