// Filter and the node lock: a node whose lock another pod holds would
// refuse this pod's bind with contention, so while another node fits, the
// locked node fails filter with bind's contention text and the pod goes
// where it can be bound now. When every fitting node is locked, filter
// answers as before (bind then reports contention, kube-scheduler retries).
#include <gtest/gtest.h>

#include "scheduling_env.hpp"
#include "two_node_cluster.hpp"

namespace {

using namespace hami;
using namespace hami::testing;
using scheduling::AllocateAt;
using scheduling::SchedulerOptions;

const Limits kGpu1000 = {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "1000"}};
const std::vector<std::string>& kNames = kTwoNodeNames;

struct LockedNodesFilter : ::testing::TestWithParam<AllocateAt> {
  LockedNodesFilter() : env(two_node_cluster_yaml(), options()) {}
  static SchedulerOptions options() {
    SchedulerOptions o;
    o.allocate_at = GetParam();
    o.node_policy = "binpack";
    return o;
  }
  void add_pod(const std::string& json) {
    rapidjson::Document doc;
    doc.Parse(json.c_str());
    env.cluster->upsert(doc);
  }
  void lock(const std::string& node, const std::string& value) {
    env.cluster->patch_node_annotations(node, {{"hami.io/mutex.lock", value}}, std::nullopt);
  }
  scheduling::FilterOutcome filter() {
    const std::string json = pod_json("ml", "p", "uid-p", {kGpu1000});
    add_pod(json);
    return env.scheduler->filter(pod_from_json(json), kNames);
  }
  SchedulingEnv env;
};

TEST_P(LockedNodesFilter, UnlockedClusterGoesToThePolicysChoice) {
  const auto out = filter();
  ASSERT_EQ(out.error, "");
  if (GetParam() == AllocateAt::Filter) {
    ASSERT_EQ(out.fit.size(), 1u);
    EXPECT_EQ(kNames[out.fit[0]], "gpu-b");
  } else {
    EXPECT_EQ(out.fit.size(), 2u);
  }
  EXPECT_TRUE(out.failed.empty());
}

TEST_P(LockedNodesFilter, ANodeLockedByAnotherPodFailsWhileAnotherNodeFits) {
  add_pod(pod_json("ml", "holder", "uid-h", {{{"cpu", "1"}}}));
  lock("gpu-b", "2025-06-15T15:06:00Z,ml,holder");
  const auto out = filter();
  ASSERT_EQ(out.error, "");
  ASSERT_EQ(out.fit.size(), 1u);
  EXPECT_EQ(kNames[out.fit[0]], "gpu-a");
  ASSERT_EQ(out.failed.size(), 1u);
  EXPECT_EQ(out.failed.at("gpu-b"), "node gpu-b has been locked within 5m0s: node lock contention");
  EXPECT_TRUE(out.unresolvable.empty());
  if (GetParam() == AllocateAt::Filter) {
    EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-node"), "gpu-a");
  }
}

TEST_P(LockedNodesFilter, EveryFittingNodeLockedAnswersAsWithoutLocks) {
  add_pod(pod_json("ml", "holder", "uid-h", {{{"cpu", "1"}}}));
  lock("gpu-a", "2025-06-15T15:06:00Z,ml,holder");
  lock("gpu-b", "2025-06-15T15:06:00Z,ml,holder");
  const auto out = filter();
  ASSERT_EQ(out.error, "");
  EXPECT_TRUE(out.failed.empty());
  if (GetParam() == AllocateAt::Filter) {
    ASSERT_EQ(out.fit.size(), 1u);
    EXPECT_EQ(kNames[out.fit[0]], "gpu-b");
  } else {
    EXPECT_EQ(out.fit.size(), 2u);
  }
}

TEST_P(LockedNodesFilter, LocksThatWouldNotStopTheBindAreIgnored) {
  add_pod(pod_json("ml", "someone", "uid-s", {{{"cpu", "1"}}}));
  // The pod's own lock, an expired one, and one whose owner is gone.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"p1", "2025-06-15T15:06:00Z,ml,p1"},
      {"p2", "2025-06-15T14:00:00Z,ml,someone"},
      {"p3", "2025-06-15T15:06:00Z,ml,gone"}};
  for (const auto& [name, value] : cases) {
    lock("gpu-b", value);
    const std::string json = pod_json("ml", name, "uid-" + name, {kGpu1000});
    add_pod(json);
    const auto out = env.scheduler->filter(pod_from_json(json), kNames);
    ASSERT_EQ(out.error, "") << value;
    EXPECT_TRUE(out.failed.empty()) << value;
    if (GetParam() == AllocateAt::Filter) {
      ASSERT_EQ(out.fit.size(), 1u) << value;
      EXPECT_EQ(kNames[out.fit[0]], "gpu-b") << value;
    }
  }
}

std::string mode_name(const ::testing::TestParamInfo<AllocateAt>& param) {
  return param.param == AllocateAt::Bind ? "allocateAtBind" : "allocateAtFilter";
}

INSTANTIATE_TEST_SUITE_P(BothModes, LockedNodesFilter,
                         ::testing::Values(AllocateAt::Bind, AllocateAt::Filter), mode_name);

}  // namespace
