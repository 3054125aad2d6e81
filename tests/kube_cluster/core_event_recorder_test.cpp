// CoreEventRecorder (core v1) against the fake API server, on a clock the
// test moves: the exact requests of a first Event, its repeats, the spam
// filter's limit, aggregation and a lost Event.
#include "kube/core_event_recorder.hpp"

#include <gtest/gtest.h>

#include "cluster_env.hpp"
#include "event_requests.hpp"
#include "kube/write_bodies.hpp"
#include "test_files.hpp"

namespace hami::kube {
namespace {

using namespace std::chrono_literals;
using hami::testing::FakeApiServer;
using testing::event_requests;
using testing::unschedulable;
using Time = std::chrono::system_clock::time_point;

constexpr const char* kEvents = "/api/v1/namespaces/ml/events";
constexpr const char* kPatch = "application/strategic-merge-patch+json";
// 2026-07-20T09:41:12Z
const Time kStart{1784540472s};

EventRecorderOptions options() {
  EventRecorderOptions o;
  o.core_v1 = true;
  o.component = "hami-scheduler";
  o.instance = "test-host";
  o.object_version = [](const cluster::Event&) { return std::string("77"); };
  return o;
}

// The create body of `event` at `at`; named for that time unless `name`.
std::string created(const cluster::Event& event, Time at, const std::string& name = "") {
  EventStamp stamp;
  stamp.unix_nanos =
      std::chrono::duration_cast<std::chrono::nanoseconds>(at.time_since_epoch()).count();
  stamp.name = name.empty() ? event_name(event.name, stamp.unix_nanos) : name;
  stamp.component = "hami-scheduler";
  stamp.instance = "test-host";
  stamp.resource_version = "77";
  return core_v1_event_body(event, stamp);
}

std::vector<std::string> methods(const FakeApiServer& server) {
  std::vector<std::string> out;
  for (const auto& r : server.requests())
    out.push_back(r.method);
  return out;
}

// The first Event is created with count 1; a repeat patches count,
// lastTimestamp and message onto it.
TEST(CoreEventRecorder, RepeatPatchesTheCountOfTheFirstEvent) {
  FakeApiServer server;
  CoreEventRecorder recorder(testing::client_for(server.url()), options());
  const auto event = unschedulable("p1", "0/3 nodes are available");
  recorder.record(event, kStart);
  recorder.record(event, kStart + 2s);
  EXPECT_EQ(event_requests(server),
            (std::vector<std::string>{
                std::string("POST ") + kEvents + " 201",
                created(event, kStart),
                std::string("PATCH ") + kEvents + "/p1.18c3f61ab8de3000 200 " + kPatch,
                R"({"count":2,"lastTimestamp":"2026-07-20T09:41:14Z",)"
                R"("message":"0/3 nodes are available"})",
            }));
  const auto stored = testing::parse(*server.object("Event", "ml", "p1.18c3f61ab8de3000"));
  EXPECT_EQ(stored["count"].GetInt(), 2);
  EXPECT_STREQ(stored["firstTimestamp"].GetString(), "2026-07-20T09:41:12Z");
}

// 25 Events of one object pass at once (1 create, 24 patches), the 26th
// within the window is dropped; a token comes back after 5 minutes, and
// the patch then carries every repeat, the dropped one included.
TEST(CoreEventRecorder, TwentySixthEventOfAnObjectIsDropped) {
  FakeApiServer server;
  CoreEventRecorder recorder(testing::client_for(server.url()), options());
  const auto event = unschedulable("p1", "m");
  for (int i = 0; i < 25; ++i)
    recorder.record(event, kStart + i * 100ms);
  EXPECT_EQ(testing::event_writes(server), 25U);
  server.clear_requests();
  recorder.record(event, kStart + 2500ms);
  EXPECT_TRUE(server.requests().empty());
  EXPECT_EQ(recorder.skipped(), 1U);
  // Another object has its own budget.
  recorder.record(unschedulable("p2", "m"), kStart + 2600ms);
  EXPECT_EQ(methods(server), (std::vector<std::string>{"POST"}));
  server.clear_requests();
  recorder.record(event, kStart + 100ms + 5min);  // 1/300 s refill: one token
  EXPECT_EQ(event_requests(server),
            (std::vector<std::string>{
                std::string("PATCH ") + kEvents + "/p1.18c3f61ab8de3000 200 " + kPatch,
                R"({"count":27,"lastTimestamp":"2026-07-20T09:46:12Z","message":"m"})",
            }));
  recorder.record(event, kStart + 200ms + 5min);
  EXPECT_EQ(recorder.skipped(), 2U);
}

// Ten different messages for one object and reason within 10 minutes: the
// tenth becomes the aggregate Event "(combined from similar events): …",
// which further new messages patch.
TEST(CoreEventRecorder, SimilarEventsAreAggregated) {
  FakeApiServer server;
  CoreEventRecorder recorder(testing::client_for(server.url()), options());
  for (int i = 1; i <= 9; ++i)
    recorder.record(unschedulable("p1", "m" + std::to_string(i)), kStart + i * 1s);
  EXPECT_EQ(methods(server), std::vector<std::string>(9, "POST"));
  server.clear_requests();
  recorder.record(unschedulable("p1", "m10"), kStart + 10s);
  recorder.record(unschedulable("p1", "m11"), kStart + 11s);
  const auto combined = unschedulable("p1", "(combined from similar events): m10");
  EXPECT_EQ(event_requests(server),
            (std::vector<std::string>{
                std::string("POST ") + kEvents + " 201",
                created(combined, kStart + 10s),
                std::string("PATCH ") + kEvents + "/p1.18c3f61d0cea1400 200 " + kPatch,
                R"({"count":2,"lastTimestamp":"2026-07-20T09:41:23Z",)"
                R"("message":"(combined from similar events): m11"})",
            }));
  // After 10 quiet minutes the messages are new again: no aggregate.
  server.clear_requests();
  recorder.record(unschedulable("p1", "m12"), kStart + 11s + 10min + 1s);
  const auto sent = event_requests(server);
  ASSERT_EQ(sent.size(), 2U);
  EXPECT_EQ(sent[1], created(unschedulable("p1", "m12"), kStart + 11s + 10min + 1s));
}

// The server dropped the Event: the patch gets 404 and the Event is
// created again with the count and first timestamp seen so far.
TEST(CoreEventRecorder, LostEventIsCreatedAgainWithItsCount) {
  FakeApiServer server;
  CoreEventRecorder recorder(testing::client_for(server.url()), options());
  const auto event = unschedulable("p1", "m");
  recorder.record(event, kStart);
  recorder.record(event, kStart + 1s);
  ASSERT_TRUE(server.remove("Event", "ml", "p1.18c3f61ab8de3000"));
  server.clear_requests();
  recorder.record(event, kStart + 2s);
  std::string body = created(event, kStart + 2s, "p1.18c3f61ab8de3000");
  const auto replace = [&body](std::string_view from, std::string_view to) {
    const auto at = body.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    body.replace(at, from.size(), to);
  };
  replace(R"("firstTimestamp":"2026-07-20T09:41:14Z")",
          R"("firstTimestamp":"2026-07-20T09:41:12Z")");
  replace(R"("count":1)", R"("count":3)");
  const auto sent = event_requests(server);
  ASSERT_EQ(sent.size(), 4U);
  EXPECT_EQ(sent[0], std::string("PATCH ") + kEvents + "/p1.18c3f61ab8de3000 404 " + kPatch);
  EXPECT_EQ(sent[2], std::string("POST ") + kEvents + " 201");
  EXPECT_EQ(sent[3], body);
}

}  // namespace
}  // namespace hami::kube
