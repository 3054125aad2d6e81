// KubernetesClusterState's Events as client-go's recorders write them:
// repeats aggregated on the wire, not one Event per report. On the system
// clock: the windows involved (6 and 5 minutes) are far longer than a test.
#include <gtest/gtest.h>

#include "cluster_env.hpp"
#include "event_requests.hpp"

namespace hami::kube {
namespace {

using namespace std::chrono_literals;
using hami::testing::FakeApiServer;

std::vector<std::string> event_calls(const FakeApiServer& server) {
  std::vector<std::string> out;
  for (const auto& r : server.requests()) {
    if (r.path.find("/events") != std::string::npos)
      out.push_back(r.method + " " + r.path + " " + std::to_string(r.status));
  }
  return out;
}

// events.k8s.io/v1: the first report creates the Event, the second patches
// a series onto it, the third is only counted.
TEST(KubeClusterEvents, EventsV1RepeatsBecomeOneSeries) {
  FakeApiServer server;
  KubernetesClusterState state(testing::client_for(server.url()), testing::fast_options());
  for (int i = 0; i < 3; ++i)
    state.record_event(testing::unschedulable("p1", "0/3 nodes are available"));
  ASSERT_TRUE(state.flush_events(5s));
  const auto calls = event_calls(server);
  ASSERT_EQ(calls.size(), 2U) << ::testing::PrintToString(calls);
  EXPECT_EQ(calls[0], "POST /apis/events.k8s.io/v1/namespaces/ml/events 201");
  EXPECT_TRUE(calls[1].starts_with("PATCH /apis/events.k8s.io/v1/namespaces/ml/events/p1."))
      << calls[1];
  const auto events = server.objects("Event");
  ASSERT_EQ(events.size(), 1U);
  EXPECT_NE(events[0].find(R"("series":{"count":2,)"), std::string::npos) << events[0];
}

// core v1: one Event whose count the repeats patch, and no more than 25
// writes for one object at once (the 26th report is dropped).
TEST(KubeClusterEvents, CoreV1RepeatsPatchTheCountAndAreRateLimited) {
  FakeApiServer server;
  auto options = testing::fast_options();
  options.core_v1_events = true;
  KubernetesClusterState state(testing::client_for(server.url()), options);
  for (int i = 0; i < 26; ++i)
    state.record_event(testing::unschedulable("p1", "0/3 nodes are available"));
  ASSERT_TRUE(state.flush_events(5s));
  const auto calls = event_calls(server);
  ASSERT_EQ(calls.size(), 25U) << ::testing::PrintToString(calls);
  EXPECT_EQ(calls[0], "POST /api/v1/namespaces/ml/events 201");
  for (size_t i = 1; i < calls.size(); ++i)
    EXPECT_TRUE(calls[i].starts_with("PATCH /api/v1/namespaces/ml/events/p1.")) << calls[i];
  const auto events = server.objects("Event");
  ASSERT_EQ(events.size(), 1U);
  EXPECT_NE(events[0].find(R"("count":25)"), std::string::npos) << events[0];
}

// Events go through the event client when one is given (its own rate
// limit): here a second server, which receives every Event while the
// cluster's server receives none.
TEST(KubeClusterEvents, EventsUseTheirOwnClient) {
  FakeApiServer server;
  FakeApiServer events_server;
  auto options = testing::fast_options();
  options.event_client = testing::client_for(events_server.url());
  KubernetesClusterState state(testing::client_for(server.url()), options);
  state.record_event(testing::unschedulable("p1", "0/3 nodes are available"));
  state.record_event(testing::unschedulable("p2", "0/3 nodes are available"));
  ASSERT_TRUE(state.flush_events(5s));
  EXPECT_TRUE(event_calls(server).empty()) << ::testing::PrintToString(event_calls(server));
  EXPECT_EQ(event_calls(events_server).size(), 2U);
  EXPECT_EQ(events_server.objects("Event").size(), 2U);
}

}  // namespace
}  // namespace hami::kube
