// Filter and a bind of this process in flight: from the moment a bind
// starts writing a node's lock until the change feed shows that lock (or
// the bind lets go of it), filter counts the node as locked, as it counts a
// node whose lock the feed shows (locked_nodes_filter_test.cpp): while
// another node fits, the node fails with bind's contention text.
// The filters run inside the bind's lock write (a hook of the cluster
// state), so the bind is in flight when they run, with no thread.
#include <gtest/gtest.h>

#include "flaky_cluster.hpp"
#include "scheduling_env.hpp"
#include "two_node_cluster.hpp"

namespace {

using namespace hami;
using namespace hami::testing;
using scheduling::AllocateAt;
using scheduling::SchedulerOptions;

const Limits kGpu1000 = {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "1000"}};
const std::vector<std::string>& kNames = kTwoNodeNames;
const std::string kContention = "node gpu-b has been locked within 5m0s: node lock contention";

struct BindInFlightFilter : ::testing::TestWithParam<AllocateAt> {
  SchedulingEnv env{two_node_cluster_yaml()};
  FlakyCluster flaky{*env.cluster};
  scheduling::Scheduler scheduler{flaky, env.registry.devices(), env.registry.scheduling(),
                                  options()};

  SchedulerOptions options() {
    SchedulerOptions o;
    o.allocate_at = GetParam();
    o.node_policy = "binpack";
    o.clock = [this] { return env.now.load(); };
    return o;
  }
  void add_pod(const std::string& name) {
    rapidjson::Document doc;
    doc.Parse(pod_json("ml", name, "uid-" + name, {kGpu1000}).c_str());
    env.cluster->upsert(doc);
  }
  scheduling::FilterOutcome filter(const std::string& name) {
    add_pod(name);
    return scheduler.filter(pod_from_json(pod_json("ml", name, "uid-" + name, {kGpu1000})), kNames);
  }
  // Pod `name` created, and in filter mode placed by filter (binpack
  // chooses gpu-b).
  void place_on_b(const std::string& name) {
    if (GetParam() == AllocateAt::Filter) {
      const auto out = filter(name);
      EXPECT_EQ(out.fit.size(), 1u);
      EXPECT_EQ(env.annotation("ml", name, "hami.io/vgpu-node"), "gpu-b");
    } else {
      add_pod(name);
    }
  }
  std::string bind_to_b(const std::string& name) {
    return scheduler.bind("ml", name, "uid-" + name, "gpu-b");
  }
  static void expect_b_passed_over(const scheduling::FilterOutcome& out) {
    EXPECT_EQ(out.error, "");
    ASSERT_EQ(out.fit.size(), 1u);
    EXPECT_EQ(kNames[out.fit[0]], "gpu-a");
    ASSERT_EQ(out.failed.count("gpu-b"), 1u);
    EXPECT_EQ(out.failed.at("gpu-b"), kContention);
  }
  static void expect_b_open(const scheduling::FilterOutcome& out) {
    EXPECT_EQ(out.error, "");
    EXPECT_EQ(out.failed.count("gpu-b"), 0u);
    bool b = false;
    for (const size_t i : out.fit)
      b = b || kNames[i] == "gpu-b";
    EXPECT_TRUE(b);
  }
};

TEST_P(BindInFlightFilter, ANodeWhoseLockABindIsWritingIsPassedOverWhileAnotherFits) {
  std::optional<scheduling::FilterOutcome> during;
  flaky.before_node_write = [&](std::string_view node) {
    if (node == "gpu-b" && !during)
      during = filter("q");
  };
  place_on_b("p");
  EXPECT_EQ(bind_to_b("p"), "");
  ASSERT_TRUE(during);
  expect_b_passed_over(*during);
  // The lock is on the node now and the feed shows it: held as before.
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/bind-phase"), "allocating");
  expect_b_passed_over(filter("r"));
}

TEST_P(BindInFlightFilter, TheMarkGoesOnceTheFeedShowsTheLockAndItIsReleased) {
  place_on_b("p");
  EXPECT_EQ(bind_to_b("p"), "");
  // The node-side plugin served p and released the lock.
  env.cluster->patch_node_annotations("gpu-b", {{"hami.io/mutex.lock", std::nullopt}},
                                      std::nullopt);
  expect_b_open(filter("q"));
}

TEST_P(BindInFlightFilter, ABindThatFailsLetsGoOfItsMark) {
  place_on_b("p");
  flaky.fail_bind_unbound = true;  // the Binding refused: the lock is released
  EXPECT_EQ(bind_to_b("p"), "injected: binding failed");
  EXPECT_FALSE(env.cluster->node("gpu-b")->annotation("hami.io/mutex.lock"));
  expect_b_open(filter("q"));
}

TEST_P(BindInFlightFilter, ALockWriteThatFailsLetsGoOfItsMark) {
  place_on_b("p");
  flaky.failure_rate = 1.0;  // every write fails; the lock is the first
  EXPECT_NE(bind_to_b("p"), "");
  flaky.failure_rate = 0;
  expect_b_open(filter("q"));
}

TEST_P(BindInFlightFilter, EveryFittingNodeBeingLockedAnswersAsWithoutLocks) {
  std::optional<scheduling::FilterOutcome> during;
  flaky.before_node_write = [&](std::string_view node) {
    if (node != "gpu-b" || during)
      return;
    // gpu-a locked by another pod, gpu-b being locked by p's bind.
    add_pod("holder");
    env.cluster->patch_node_annotations(
        "gpu-a", {{"hami.io/mutex.lock", "2025-06-15T15:06:00Z,ml,holder"}}, std::nullopt);
    during = filter("q");
  };
  place_on_b("p");
  EXPECT_EQ(bind_to_b("p"), "");
  ASSERT_TRUE(during);
  EXPECT_EQ(during->error, "");
  EXPECT_TRUE(during->failed.empty());
}

std::string mode_name(const ::testing::TestParamInfo<AllocateAt>& param) {
  return param.param == AllocateAt::Bind ? "allocateAtBind" : "allocateAtFilter";
}

INSTANTIATE_TEST_SUITE_P(BothModes, BindInFlightFilter,
                         ::testing::Values(AllocateAt::Bind, AllocateAt::Filter), mode_name);

}  // namespace
