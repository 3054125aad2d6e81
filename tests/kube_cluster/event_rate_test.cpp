// How many Event writes reach the API server when kube-scheduler retries
// unschedulable GPU pods: 20 pods filtered every 100 ms for 10 s (2,000
// FilteringFailed Events), on a clock the test moves, through the whole
// Kubernetes backend (record_event → EventSink → recorder → fake API
// server). Before aggregation every Event was one POST: 2,000 writes, 200
// per second, each kept by the API server for an hour.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>

#include "cluster_env.hpp"
#include "event_requests.hpp"

namespace hami::kube {
namespace {

using namespace std::chrono_literals;
using hami::testing::FakeApiServer;
using Time = std::chrono::system_clock::time_point;

constexpr int kPods = 20;
constexpr int kRounds = 100;  // every 100 ms for 10 s
constexpr auto kRound = 100ms;

size_t writes_for_unschedulable_pods(bool core_v1) {
  FakeApiServer server;
  std::atomic<int64_t> now_ms{1784540472000};
  auto options = testing::fast_options();
  options.core_v1_events = core_v1;
  options.event_clock = [&] { return Time(std::chrono::milliseconds(now_ms.load())); };
  KubernetesClusterState state(testing::client_for(server.url()), options);
  for (int round = 0; round < kRounds; ++round) {
    for (int pod = 0; pod < kPods; ++pod) {
      state.record_event(testing::unschedulable(
          "gpu-pod-" + std::to_string(pod),
          "0/8 nodes are available: 8 node(s) didn't have enough GPU memory"));
    }
    // Written before the next round, as 100 ms would allow.
    EXPECT_TRUE(state.flush_events(10s));
    now_ms += std::chrono::milliseconds(kRound).count();
  }
  const size_t writes = testing::event_writes(server);
  std::printf("%s: %zu Event writes for %d Events in 10 s (%.1f/s; one write per Event: %.1f/s)\n",
              core_v1 ? "core v1" : "events.k8s.io/v1", writes, kPods * kRounds,
              static_cast<double>(writes) / 10.0, kPods * kRounds / 10.0);
  return writes;
}

// Per pod: the first Event created, the second turning it into a series;
// the other 98 only counted (written by the refresh or the series' end,
// minutes later).
TEST(EventRate, EventsV1SeriesWriteTwicePerPod) {
  EXPECT_EQ(writes_for_unschedulable_pods(false), 2U * kPods);
}

// Per pod: a create and 24 count patches, then the spam filter's bucket
// (burst 25, one more per 5 minutes) is empty for the rest of the 10 s.
TEST(EventRate, CoreV1RateLimitedToTwentyFivePerPod) {
  EXPECT_EQ(writes_for_unschedulable_pods(true), 25U * kPods);
}

}  // namespace
}  // namespace hami::kube
