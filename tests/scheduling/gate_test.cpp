// Scheduling gates (leader / cache sync) and the PodGroup node-lock retry
// (HAMi reference §6.1 step 3, --node-lock-retry-timeout).
#include <gtest/gtest.h>

#include <mutex>

#include "scheduling_env.hpp"

namespace {

using namespace hami;
using namespace hami::testing;
using scheduling::SchedulerOptions;

const Limits kGpu = {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "3000"}};
constexpr std::string_view kHeldLock = "2025-06-15T15:06:00Z,ml,holder";

std::string cluster_yaml() {
  return "kind: List\nitems:\n" + nvidia_node("gpu-a", 1, 8000);
}

// A pod JSON with `labels` (a JSON object text) in its metadata.
std::string with_labels(std::string json, std::string_view labels) {
  const std::string at = R"("metadata":{)";
  json.insert(json.find(at) + at.size(), R"("labels":)" + std::string(labels) + ",");
  return json;
}

struct Gate {
  std::mutex mu;
  std::string reason;
  std::string operator()() {
    std::lock_guard guard(mu);
    return reason;
  }
  void set(std::string r) {
    std::lock_guard guard(mu);
    reason = std::move(r);
  }
};

struct GateTest : ::testing::Test {
  static SchedulerOptions options(Gate& gate) {
    SchedulerOptions o;
    o.gate = [&gate] { return gate(); };
    return o;
  }
  GateTest() : env(cluster_yaml(), options(gate)) {}

  void add_pod(const std::string& json) {
    rapidjson::Document doc;
    doc.Parse(json.c_str());
    env.cluster->upsert(doc);
  }

  Gate gate;
  SchedulingEnv env;
};

TEST_F(GateTest, ClosedGateAnswersFilterAndBindWithItsReasonAndWritesNothing) {
  add_pod(pod_json("ml", "p", "uid-p", {kGpu}));
  const size_t events_before = env.cluster->events().size();
  gate.set("not the leader: lease kube-system/kube-scheduler is held by node-b_1234");
  const auto pod = pod_from_json(pod_json("ml", "p", "uid-p", {kGpu}));
  const std::vector<std::string> names = {"gpu-a"};
  const auto out = env.scheduler->filter(pod, names);
  EXPECT_EQ(out.error, "not the leader: lease kube-system/kube-scheduler is held by node-b_1234");
  EXPECT_TRUE(out.fit.empty());
  EXPECT_TRUE(out.failed.empty());
  EXPECT_FALSE(out.passthrough);

  gate.set("cluster cache not synced: nodes: list failed (attempt 3): connection refused");
  EXPECT_EQ(env.scheduler->bind("ml", "p", "uid-p", "gpu-a"),
            "cluster cache not synced: nodes: list failed (attempt 3): connection refused");
  EXPECT_EQ(env.cluster->pod("ml", "p")->node_name, "");
  EXPECT_FALSE(env.cluster->node("gpu-a")->annotation("hami.io/mutex.lock"));
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"), "<none>");
  EXPECT_EQ(env.cluster->events().size(), events_before);

  gate.set("");
  EXPECT_EQ(env.scheduler->filter(pod, names).fit.size(), 1u);
  EXPECT_EQ(env.scheduler->bind("ml", "p", "uid-p", "gpu-a"), "");
  EXPECT_EQ(env.cluster->pod("ml", "p")->node_name, "gpu-a");
}

struct PodGroupRetry : ::testing::Test {
  static SchedulerOptions options(std::chrono::milliseconds retry,
                                  std::function<void(std::chrono::milliseconds)> sleep) {
    SchedulerOptions o;
    o.pod_group_lock_retry = retry;
    o.sleep = std::move(sleep);
    return o;
  }
  explicit PodGroupRetry(std::chrono::milliseconds retry = std::chrono::milliseconds(300))
      : env(cluster_yaml(), options(retry, [this](std::chrono::milliseconds d) {
              sleeps.push_back(d);
              if (on_sleep)
                on_sleep(sleeps.size());
            })) {
    add_pod(pod_json("ml", "holder", "uid-h", {{{"cpu", "1"}}}));
    env.cluster->patch_node_annotations("gpu-a", {{"hami.io/mutex.lock", std::string(kHeldLock)}},
                                        std::nullopt);
  }
  void add_pod(const std::string& json) {
    rapidjson::Document doc;
    doc.Parse(json.c_str());
    env.cluster->upsert(doc);
  }
  std::string lock() const {
    const auto v = env.cluster->node("gpu-a")->annotation("hami.io/mutex.lock");
    return v ? std::string(*v) : "<none>";
  }

  std::vector<std::chrono::milliseconds> sleeps;
  std::function<void(size_t)> on_sleep;
  SchedulingEnv env;
};

TEST_F(PodGroupRetry, MemberWaitsForTheLockToBeReleased) {
  add_pod(with_labels(pod_json("ml", "gang-1", "uid-g", {kGpu}),
                      R"({"scheduling.x-k8s.io/pod-group":"gang"})"));
  // The device plugin releases the holder's lock during the third wait.
  on_sleep = [this](size_t n) {
    if (n == 3) {
      env.cluster->patch_node_annotations("gpu-a", {{"hami.io/mutex.lock", std::nullopt}},
                                          std::nullopt);
    }
  };
  EXPECT_EQ(env.scheduler->bind("ml", "gang-1", "uid-g", "gpu-a"), "");
  EXPECT_EQ(sleeps, std::vector<std::chrono::milliseconds>(3, std::chrono::milliseconds(100)));
  EXPECT_EQ(lock(), "2025-06-15T15:06:40Z,ml,gang-1");
  EXPECT_EQ(env.cluster->pod("ml", "gang-1")->node_name, "gpu-a");
}

TEST_F(PodGroupRetry, MemberTimesOutWithHamisText) {
  add_pod(with_labels(pod_json("ml", "gang-1", "uid-g", {kGpu}),
                      R"({"scheduling.x-k8s.io/pod-group":"gang"})"));
  EXPECT_EQ(env.scheduler->bind("ml", "gang-1", "uid-g", "gpu-a"),
            "timed out after 300ms waiting for node gpu-a to be unlocked: node lock contention");
  EXPECT_EQ(sleeps.size(), 3u);
  EXPECT_EQ(lock(), kHeldLock);
  EXPECT_EQ(env.cluster->pod("ml", "gang-1")->node_name, "");
}

TEST_F(PodGroupRetry, SchedulingGroupInTheSpecMakesAMember) {
  std::string json = pod_json("ml", "gang-2", "uid-g2", {kGpu});
  const auto at = json.find(R"("spec":{)");
  ASSERT_NE(at, std::string::npos);
  json.insert(at + 8, R"("schedulingGroup":{"podGroupName":"gang"},)");
  add_pod(json);
  EXPECT_EQ(env.cluster->pod("ml", "gang-2")->pod_group_name, "gang");
  EXPECT_EQ(env.scheduler->bind("ml", "gang-2", "uid-g2", "gpu-a"),
            "timed out after 300ms waiting for node gpu-a to be unlocked: node lock contention");
  EXPECT_EQ(sleeps.size(), 3u);
}

TEST_F(PodGroupRetry, OrdinaryPodAndEmptyGroupLabelFailAtOnce) {
  add_pod(pod_json("ml", "solo", "uid-s", {kGpu}));
  add_pod(with_labels(pod_json("ml", "empty", "uid-e", {kGpu}),
                      R"({"scheduling.x-k8s.io/pod-group":""})"));
  EXPECT_EQ(env.scheduler->bind("ml", "solo", "uid-s", "gpu-a"),
            "node gpu-a has been locked within 5m0s: node lock contention");
  EXPECT_EQ(env.scheduler->bind("ml", "empty", "uid-e", "gpu-a"),
            "node gpu-a has been locked within 5m0s: node lock contention");
  EXPECT_TRUE(sleeps.empty());
}

struct PodGroupRetryDisabled : PodGroupRetry {
  PodGroupRetryDisabled() : PodGroupRetry(std::chrono::milliseconds(0)) {}
};

TEST_F(PodGroupRetryDisabled, ZeroTimeoutMeansNoRetry) {
  add_pod(with_labels(pod_json("ml", "gang-1", "uid-g", {kGpu}),
                      R"({"scheduling.x-k8s.io/pod-group":"gang"})"));
  EXPECT_EQ(env.scheduler->bind("ml", "gang-1", "uid-g", "gpu-a"),
            "node gpu-a has been locked within 5m0s: node lock contention");
  EXPECT_TRUE(sleeps.empty());
}

TEST(GoDurationText, WholeSecondsAsGoPrintsThem) {
  SchedulingEnv env(cluster_yaml(), PodGroupRetry::options(std::chrono::seconds(28), [](auto) {}));
  rapidjson::Document doc;
  doc.Parse(
      with_labels(pod_json("ml", "g", "uid-g", {kGpu}), R"({"scheduling.x-k8s.io/pod-group":"x"})")
          .c_str());
  env.cluster->upsert(doc);
  doc.Parse(pod_json("ml", "holder", "uid-h", {{{"cpu", "1"}}}).c_str());
  env.cluster->upsert(doc);
  env.cluster->patch_node_annotations("gpu-a", {{"hami.io/mutex.lock", std::string(kHeldLock)}},
                                      std::nullopt);
  EXPECT_EQ(env.scheduler->bind("ml", "g", "uid-g", "gpu-a"),
            "timed out after 28s waiting for node gpu-a to be unlocked: node lock contention");
}

}  // namespace
