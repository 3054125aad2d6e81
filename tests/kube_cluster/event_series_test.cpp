// EventSeriesRecorder (events.k8s.io/v1) against the fake API server, on a
// clock the test moves: the exact requests of a first Event, its series,
// the refresh, the end of a series, a lost Event and the cache bound.
#include "kube/event_series.hpp"

#include <gtest/gtest.h>

#include "cluster_env.hpp"
#include "event_requests.hpp"
#include "test_files.hpp"

namespace hami::kube {
namespace {

using namespace std::chrono_literals;
using hami::testing::FakeApiServer;
using testing::event_requests;
using testing::unschedulable;
using Time = std::chrono::system_clock::time_point;

constexpr const char* kEvents = "/apis/events.k8s.io/v1/namespaces/ml/events";
constexpr const char* kPatch = "application/strategic-merge-patch+json";
// 2026-07-20T09:41:12Z
const Time kStart{1784540472s};

class EventSeriesTest : public ::testing::Test {
 protected:
  EventRecorderOptions options() {
    EventRecorderOptions o;
    o.component = "hami-scheduler";
    o.instance = "test-host";
    o.clock = [this] { return now_; };
    return o;
  }

  // The create body of `event` first reported at `at`.
  static std::string created(const cluster::Event& event, Time at) {
    EventStamp stamp;
    stamp.unix_nanos =
        std::chrono::duration_cast<std::chrono::nanoseconds>(at.time_since_epoch()).count();
    stamp.name = event_name(event.name, stamp.unix_nanos);
    stamp.component = "hami-scheduler";
    stamp.instance = "test-host";
    return events_v1_event_body(event, stamp);
  }

  Time now_ = kStart;
  FakeApiServer server_;
};

// The first Event is created; the second makes it a series (one patch);
// further repeats are only counted, whatever their note says.
TEST_F(EventSeriesTest, RepeatsBecomeOneSeriesPatchedOnce) {
  EventSeriesRecorder recorder(testing::client_for(server_.url()), options());
  const auto event = unschedulable("p1", "0/3 nodes are available");
  recorder.record(event, kStart);
  recorder.record(event, kStart + 100ms);
  recorder.record(event, kStart + 200ms);
  recorder.record(unschedulable("p1", "another note"), kStart + 300ms);
  EXPECT_EQ(event_requests(server_),
            (std::vector<std::string>{
                std::string("POST ") + kEvents + " 201",
                created(event, kStart),
                std::string("PATCH ") + kEvents + "/p1.18c3f61ab8de3000 200 " + kPatch,
                R"({"series":{"count":2,"lastObservedTime":"2026-07-20T09:41:12.100000Z"}})",
            }));
  EXPECT_EQ(recorder.followed(), 1U);
  const auto stored = testing::parse(*server_.object("Event", "ml", "p1.18c3f61ab8de3000"));
  EXPECT_EQ(stored["series"]["count"].GetInt(), 2);
  EXPECT_STREQ(stored["note"].GetString(), "0/3 nodes are available");
}

// Another reason, another object: Events of their own.
TEST_F(EventSeriesTest, OnlyIsomorphicEventsShareASeries) {
  EventSeriesRecorder recorder(testing::client_for(server_.url()), options());
  recorder.record(unschedulable("p1", "m"), kStart);
  recorder.record(unschedulable("p2", "m"), kStart);
  auto bound = unschedulable("p1", "m");
  bound.type = "Normal";
  bound.reason = "BindingSucceed";
  recorder.record(bound, kStart + 1ms);  // another name: p1.<time>
  size_t posts = 0;
  for (const auto& r : server_.requests())
    posts += r.method == "POST" ? 1U : 0U;
  EXPECT_EQ(posts, 3U);
  EXPECT_EQ(recorder.followed(), 3U);
}

// Every 30 minutes each series is patched with its count; 6 minutes after
// its last repeat a series gets its final count and is forgotten, so the
// next repeat creates a new Event.
TEST_F(EventSeriesTest, RefreshAndEndOfASeries) {
  EventSeriesRecorder recorder(testing::client_for(server_.url()), options());
  const auto event = unschedulable("p1", "m");
  for (int i = 0; i < 5; ++i)
    recorder.record(event, kStart + i * 1s);
  now_ = kStart + 29min;
  recorder.record(event, now_);  // count 6
  recorder.maintain();           // quiet for 0 s, refresh not due: nothing
  server_.clear_requests();
  now_ = kStart + 30min;
  recorder.maintain();
  const std::string path = std::string(kEvents) + "/p1.18c3f61ab8de3000";
  EXPECT_EQ(event_requests(server_),
            (std::vector<std::string>{
                "PATCH " + path + " 200 " + kPatch,
                R"({"series":{"count":6,"lastObservedTime":"2026-07-20T10:10:12.000000Z"}})",
            }));
  server_.clear_requests();
  now_ = kStart + 29min + 6min;
  recorder.maintain();  // exactly 6 minutes quiet: not yet
  EXPECT_TRUE(event_requests(server_).empty());
  now_ += 1s;
  recorder.maintain();
  EXPECT_EQ(event_requests(server_),
            (std::vector<std::string>{
                "PATCH " + path + " 200 " + kPatch,
                R"({"series":{"count":6,"lastObservedTime":"2026-07-20T10:10:12.000000Z"}})",
            }));
  EXPECT_EQ(recorder.followed(), 0U);
  server_.clear_requests();
  recorder.record(event, now_);
  const auto sent = event_requests(server_);
  ASSERT_EQ(sent.size(), 2U);
  EXPECT_EQ(sent[0], std::string("POST ") + kEvents + " 201");
  EXPECT_EQ(sent[1], created(event, now_));
}

// A single Event is forgotten 6 minutes after it happened.
TEST_F(EventSeriesTest, SingleEventsAreForgottenAfterSixMinutes) {
  EventSeriesRecorder recorder(testing::client_for(server_.url()), options());
  recorder.record(unschedulable("p1", "m"), kStart);
  now_ = kStart + 6min + 1s;
  recorder.maintain();
  EXPECT_EQ(recorder.followed(), 0U);
  EXPECT_EQ(testing::event_writes(server_), 1U);
}

// The server dropped the Event (its TTL ran out): the series patch gets
// 404, and the Event is created again with its series.
TEST_F(EventSeriesTest, LostEventIsCreatedAgainWithItsSeries) {
  EventSeriesRecorder recorder(testing::client_for(server_.url()), options());
  const auto event = unschedulable("p1", "m");
  recorder.record(event, kStart);
  ASSERT_TRUE(server_.remove("Event", "ml", "p1.18c3f61ab8de3000"));
  server_.clear_requests();
  recorder.record(event, kStart + 1s);
  const std::string with_series =
      created(event, kStart).substr(0, created(event, kStart).size() - 1) +
      R"(,"series":{"count":2,"lastObservedTime":"2026-07-20T09:41:13.000000Z"}})";
  EXPECT_EQ(event_requests(server_),
            (std::vector<std::string>{
                std::string("PATCH ") + kEvents + "/p1.18c3f61ab8de3000 404 " + kPatch,
                R"({"series":{"count":2,"lastObservedTime":"2026-07-20T09:41:13.000000Z"}})",
                std::string("POST ") + kEvents + " 201",
                with_series,
            }));
}

// At most cache_size Events are followed; the least recently observed one
// makes room, its uncounted repeats patched first.
TEST_F(EventSeriesTest, BoundedCacheWritesTheCountOfWhatItForgets) {
  EventSeriesTiming timing;
  timing.cache_size = 2;
  EventSeriesRecorder recorder(testing::client_for(server_.url()), options(), timing);
  for (int i = 0; i < 3; ++i)
    recorder.record(unschedulable("p1", "m"), kStart + i * 1s);  // series of 3, 2 written
  recorder.record(unschedulable("p2", "m"), kStart + 3s);
  server_.clear_requests();
  recorder.record(unschedulable("p3", "m"), kStart + 4s);
  const auto sent = event_requests(server_);
  ASSERT_EQ(sent.size(), 4U) << ::testing::PrintToString(sent);
  EXPECT_EQ(sent[0], std::string("PATCH ") + kEvents + "/p1.18c3f61ab8de3000 200 " + kPatch);
  EXPECT_EQ(sent[1], R"({"series":{"count":3,"lastObservedTime":"2026-07-20T09:41:14.000000Z"}})");
  EXPECT_EQ(sent[2], std::string("POST ") + kEvents + " 201");
  EXPECT_EQ(recorder.followed(), 2U);
}

}  // namespace
}  // namespace hami::kube
