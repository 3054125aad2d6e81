// Bind preconditions, all judged before anything is written: a pod bound to
// another node (spec.nodeName, or filter's allocation elsewhere), a
// terminating pod, a pod that is not Pending, another scheduler's pod, a
// wrong UID. Each is refused with its own error and changes nothing: no
// lock, no annotation, no charge, the pod's resourceVersion as it was. A
// retried bind to the node the pod is bound to is a success that changes
// nothing. And a failed bind takes back only what it wrote, only while it
// is as written.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "flaky_cluster.hpp"
#include "scheduling_env.hpp"

namespace {

using namespace hami;
using namespace hami::testing;
using scheduling::AllocateAt;
using scheduling::SchedulerOptions;

const Limits kGpu3000 = {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "3000"}};

// A running pod on gpu-a holding 20000 MiB of GPU-gpu-a-0, as the demo's
// ml/llm-infer-0 does.
constexpr std::string_view kRunningAnnotations =
    R"({"hami.io/vgpu-node":"gpu-a","hami.io/vgpu-devices-to-allocate":"GPU-gpu-a-0,NVIDIA,20000,0:;",)"
    R"("hami.io/vgpu-devices-allocated":"GPU-gpu-a-0,NVIDIA,20000,0:;","hami.io/bind-phase":"success"})";

struct BindPreconditions : ::testing::Test {
  explicit BindPreconditions(SchedulerOptions options = {})
      : env("kind: List\nitems:\n" + nvidia_node("gpu-a", 1, 40960) +
                nvidia_node("gpu-b", 1, 40960),
            std::move(options)) {}

  void add_pod(std::string json, std::string_view before, std::string_view insert) {
    if (!insert.empty())
      json.replace(json.find(before), 0, insert);
    rapidjson::Document doc;
    doc.Parse(json.c_str());
    env.cluster->upsert(doc);
  }
  std::string rv(std::string_view name) const {
    return env.cluster->pod("ml", name)->resource_version;
  }
  bool locked(std::string_view node) const {
    return env.cluster->node(node)->annotation("hami.io/mutex.lock").has_value();
  }
  std::optional<scheduling::PodCharge> charge(std::string_view uid) const {
    const auto snapshot = env.scheduler->ledger().read();
    const auto* c = snapshot->pod(uid);
    return c != nullptr ? std::optional(*c) : std::nullopt;
  }
  int64_t used_on(std::string_view node) const {
    const auto snapshot = env.scheduler->ledger().read();
    return snapshot->node(node)->use[0][0].memory_mib;
  }
  // Binds and checks the refusal changed nothing.
  void expect_refused(std::string_view name, std::string_view uid, std::string_view node,
                      const std::string& error) {
    const std::string before = rv(name);
    const auto charged = charge(std::string(uid));
    EXPECT_EQ(env.scheduler->bind("ml", name, uid, node), error);
    EXPECT_EQ(rv(name), before);
    EXPECT_FALSE(locked(node));
    const auto after = charge(std::string(uid));
    ASSERT_EQ(after.has_value(), charged.has_value());
    if (after) {
      EXPECT_EQ(after->node, charged->node);
      EXPECT_EQ(after->devices, charged->devices);
    }
  }

  SchedulingEnv env;
};

// The demo's stray /bind: a running pod's allocation survives a bind to
// another node, and its GPU stays charged.
TEST_F(BindPreconditions, RunningPodBoundElsewhereKeepsItsAllocation) {
  std::string json = pod_json("ml", "llm-infer-0", "uid-llm",
                              {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "20000"}}}, {},
                              kRunningAnnotations);
  json.replace(json.find(R"("phase":"Pending")"), 17, R"("phase":"Running")");
  add_pod(json, R"("schedulerName")", R"("nodeName":"gpu-a",)");
  ASSERT_EQ(used_on("gpu-a"), 20000);
  expect_refused("llm-infer-0", "uid-llm", "gpu-b",
                 "pod ml/llm-infer-0 is already assigned to node \"gpu-a\"");
  EXPECT_EQ(env.annotation("ml", "llm-infer-0", "hami.io/vgpu-node"), "gpu-a");
  EXPECT_EQ(env.annotation("ml", "llm-infer-0", "hami.io/vgpu-devices-allocated"),
            "GPU-gpu-a-0,NVIDIA,20000,0:;");
  EXPECT_EQ(used_on("gpu-a"), 20000);
  EXPECT_EQ(used_on("gpu-b"), 0);
}

// kube-scheduler's httpTimeout expired while our bind succeeded: it binds
// the pod again, to another node. The first allocation stays.
TEST_F(BindPreconditions, BindAgainToAnotherNodeAfterSuccessIsRefused) {
  add_pod(pod_json("ml", "p", "uid-p", {kGpu3000}), "", "");
  ASSERT_EQ(env.scheduler->bind("ml", "p", "uid-p", "gpu-a"), "");
  const std::string allocated = env.annotation("ml", "p", "hami.io/vgpu-devices-allocated");
  ASSERT_EQ(allocated, "GPU-gpu-a-0,NVIDIA,3000,0:;");
  const std::string before = rv("p");
  EXPECT_EQ(env.scheduler->bind("ml", "p", "uid-p", "gpu-b"),
            "pod ml/p is already assigned to node \"gpu-a\"");
  EXPECT_EQ(rv("p"), before);
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"), allocated);
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-node"), "gpu-a");
  EXPECT_FALSE(locked("gpu-b"));
  EXPECT_EQ(used_on("gpu-a"), 3000);
  EXPECT_EQ(used_on("gpu-b"), 0);
}

TEST_F(BindPreconditions, RetriedBindToTheSameNodeChangesNothing) {
  add_pod(pod_json("ml", "p", "uid-p", {kGpu3000}), "", "");
  ASSERT_EQ(env.scheduler->bind("ml", "p", "uid-p", "gpu-a"), "");
  const std::string before = rv("p");
  const std::string lock =
      std::string(*env.cluster->node("gpu-a")->annotation("hami.io/mutex.lock"));
  env.now += 30;
  EXPECT_EQ(env.scheduler->bind("ml", "p", "uid-p", "gpu-a"), "");
  EXPECT_EQ(rv("p"), before);
  EXPECT_EQ(*env.cluster->node("gpu-a")->annotation("hami.io/mutex.lock"), lock);
  EXPECT_EQ(used_on("gpu-a"), 3000);
}

TEST_F(BindPreconditions, TerminatingPodIsRefused) {
  add_pod(pod_json("ml", "p", "uid-p", {kGpu3000}), R"("uid":)",
          R"("deletionTimestamp":"2025-06-15T15:00:00Z",)");
  expect_refused("p", "uid-p", "gpu-a", "pod ml/p is being deleted");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-node"), "<none>");
}

TEST_F(BindPreconditions, PodThatIsNotPendingIsRefused) {
  std::string json = pod_json("ml", "p", "uid-p", {kGpu3000});
  json.replace(json.find(R"("phase":"Pending")"), 17, R"("phase":"Succeeded")");
  add_pod(json, "", "");
  expect_refused("p", "uid-p", "gpu-a", "pod ml/p is not pending (phase Succeeded)");
}

TEST_F(BindPreconditions, AnotherSchedulersPodIsRefused) {
  std::string json = pod_json("ml", "p", "uid-p", {kGpu3000});
  json.replace(json.find("hami-scheduler"), 14, "default-scheduler");
  add_pod(json, "", "");
  expect_refused("p", "uid-p", "gpu-a",
                 "pod ml/p is for scheduler \"default-scheduler\", not \"hami-scheduler\"");
}

TEST_F(BindPreconditions, WrongUidIsRefused) {
  add_pod(pod_json("ml", "p", "uid-p", {kGpu3000}), "", "");
  expect_refused("p", "uid-old", "gpu-a",
                 "Precondition failed: UID in precondition: uid-old, UID in object meta: uid-p");
}

struct FilterModePreconditions : BindPreconditions {
  static SchedulerOptions filter_mode() {
    SchedulerOptions o;
    o.allocate_at = AllocateAt::Filter;
    return o;
  }
  FilterModePreconditions() : BindPreconditions(filter_mode()) {}
};

// Filter chose gpu-a and wrote its devices; a bind to gpu-b would start the
// pod with devices of gpu-a.
TEST_F(FilterModePreconditions, BindToANodeFilterDidNotChooseIsRefused) {
  const std::string json = pod_json("ml", "p", "uid-p", {kGpu3000});
  add_pod(json, "", "");
  const std::vector<std::string> names = {"gpu-a"};
  ASSERT_EQ(env.scheduler->filter(pod_from_json(json), names).fit, std::vector<size_t>{0});
  ASSERT_EQ(env.annotation("ml", "p", "hami.io/vgpu-node"), "gpu-a");
  expect_refused("p", "uid-p", "gpu-b",
                 "pod ml/p was allocated devices on node \"gpu-a\" by filter, not on \"gpu-b\"");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"),
            "GPU-gpu-a-0,NVIDIA,3000,0:;");
  EXPECT_EQ(env.scheduler->bind("ml", "p", "uid-p", "gpu-a"), "");
}

// Filter does not write devices onto a pod that is already bound.
TEST_F(FilterModePreconditions, FilterOfABoundPodWritesNothing) {
  const std::string json = pod_json("ml", "p", "uid-p", {kGpu3000});
  add_pod(json, R"("schedulerName")", R"("nodeName":"gpu-b",)");
  const std::string before = rv("p");
  const std::vector<std::string> names = {"gpu-a"};
  const auto out = env.scheduler->filter(pod_from_json(json), names);
  EXPECT_EQ(out.error, "pod ml/p is already assigned to node \"gpu-b\"");
  EXPECT_TRUE(out.fit.empty());
  EXPECT_EQ(rv("p"), before);
  EXPECT_FALSE(charge("uid-p"));
}

// The rollback of a failed bind restores what the pod carried before and
// leaves alone a key someone else changed since the write.
struct Rollback : ::testing::Test {
  SchedulingEnv env{"kind: List\nitems:\n" + nvidia_node("gpu-a", 1, 40960)};
  FlakyCluster flaky{*env.cluster};
  scheduling::Scheduler scheduler{flaky, env.registry.devices(), env.registry.scheduling(),
                                  options()};
  SchedulerOptions options() {
    SchedulerOptions o;
    o.clock = [this] { return env.now.load(); };
    return o;
  }
};

TEST_F(Rollback, RestoresPriorValuesAndSparesKeysChangedSince) {
  rapidjson::Document doc;
  doc.Parse(pod_json("ml", "p", "uid-p", {kGpu3000}, {},
                     R"({"hami.io/bind-phase":"failed","example.com/keep":"1"})")
                .c_str());
  env.cluster->upsert(doc);
  flaky.before_bind = [&] {
    // The node-side plugin, or an operator, changes one key meanwhile.
    cluster::PodMetadataPatch other;
    other.annotations.push_back({"hami.io/bind-time", "999"});
    env.cluster->patch_pod_metadata("ml", "p", other, std::nullopt);
  };
  flaky.fail_bind_unbound = true;
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "injected: binding failed");
  // Restored to the value before the attempt.
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/bind-phase"), "failed");
  // Changed by someone else since: left as they made it.
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/bind-time"), "999");
  // Added by the attempt, unchanged: removed.
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"), "<none>");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-to-allocate"), "<none>");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-node"), "<none>");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-time"), "<none>");
  EXPECT_FALSE(env.cluster->pod("ml", "p")->label("hami.io/vgpu-node"));
  // Never touched by the attempt.
  EXPECT_EQ(env.annotation("ml", "p", "example.com/keep"), "1");
}

// A pod deleted and re-created under the same name between the write and
// the rollback: the new pod is not written to.
TEST_F(Rollback, NeverWritesToAPodReCreatedMeanwhile) {
  const auto add = [&](std::string_view uid) {
    rapidjson::Document doc;
    doc.Parse(pod_json("ml", "p", uid, {kGpu3000}).c_str());
    env.cluster->upsert(doc);
  };
  add("uid-p");
  flaky.before_bind = [&] {
    env.cluster->delete_pod("ml", "p");
    add("uid-p2");
  };
  flaky.fail_bind_unbound = true;
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "injected: binding failed");
  EXPECT_EQ(env.cluster->pod("ml", "p")->uid, "uid-p2");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/bind-phase"), "<none>");
  EXPECT_FALSE(env.cluster->node("gpu-a")->annotation("hami.io/mutex.lock"));
  const auto snapshot = scheduler.ledger().read();
  EXPECT_EQ(snapshot->pod("uid-p"), nullptr);
  EXPECT_EQ(snapshot->node("gpu-a")->use[0][0].memory_mib, 0);
}

}  // namespace
