// explain walks large node lists in chunks on the filter pool's workers:
// every node's verdict must be the one a walk of that node alone gives, in
// the same place of the answer.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scheduling/explain.hpp"
#include "scheduling_env.hpp"

namespace hami::testing {
namespace {

TEST(ExplainWalk, ChunkedWalkAnswersAsOneNodeAtATime) {
  // 300 nodes (three chunks of 128 and more): every third too small for
  // the pod, so fitting and failing nodes alternate across the chunks.
  std::string yaml = "kind: List\nitems:\n";
  std::vector<std::string> names;
  for (int i = 0; i < 300; ++i) {
    names.push_back("gpu-" + std::to_string(i));
    yaml += nvidia_node(names.back(), 2, i % 3 == 0 ? 4000 : 40960);
  }
  scheduling::SchedulerOptions options;
  options.filter_workers = 1;  // a worker besides the caller, on any machine
  SchedulingEnv env(yaml, options);
  const auto pod = pod_from_json(
      pod_json("ml", "p", "uid-p", {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "8000"}}}));
  const scheduling::Explanation all = env.scheduler->explain(pod, names);
  ASSERT_EQ(all.nodes.size(), names.size());
  EXPECT_EQ(all.summary.rfind("200 of 300 nodes fit", 0), 0u) << all.summary;
  for (const scheduling::NodeExplanation& n : all.nodes) {
    const std::vector<std::string> one = {n.name};
    const scheduling::Explanation alone = env.scheduler->explain(pod, one);
    ASSERT_EQ(alone.nodes.size(), 1u);
    const scheduling::NodeExplanation& a = alone.nodes[0];
    EXPECT_EQ(n.fits, a.fits) << n.name;
    EXPECT_EQ(n.reason, a.reason) << n.name;
    EXPECT_EQ(n.detail, a.detail) << n.name;
    EXPECT_EQ(n.chosen, a.chosen) << n.name;
    EXPECT_EQ(n.score, a.score) << n.name;
    ASSERT_EQ(n.devices.size(), a.devices.size()) << n.name;
    for (size_t d = 0; d < n.devices.size(); ++d) {
      EXPECT_EQ(n.devices[d].id, a.devices[d].id);
      EXPECT_EQ(n.devices[d].reason, a.devices[d].reason);
      EXPECT_EQ(n.devices[d].detail, a.devices[d].detail);
    }
  }
}

}  // namespace
}  // namespace hami::testing
