// Bind (HAMi reference §6.1, scheduler_test.go Test_Bind_*), with the
// deliberate fixes: every managed pod takes the node lock (7.7#5) and a
// failed bind releases the lock, the reservation and the allocation (7.7#11).
#include <gtest/gtest.h>

#include <tuple>

#include "scheduling_env.hpp"

namespace {

using namespace hami;
using namespace hami::testing;
using scheduling::AllocateAt;
using scheduling::SchedulerOptions;

const Limits kGpu3000 = {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "3000"}};

std::string cluster_yaml() {
  return "kind: List\nitems:\n" + nvidia_node("gpu-a", 2, 8000) + nvidia_node("gpu-b", 1, 8000);
}

struct Bind : ::testing::Test {
  explicit Bind(SchedulerOptions options = {}) : env(cluster_yaml(), std::move(options)) {}

  void add_pod(const std::string& json) {
    rapidjson::Document doc;
    doc.Parse(json.c_str());
    env.cluster->upsert(doc);
  }
  std::optional<std::string> lock(std::string_view node) const {
    const auto v = env.cluster->node(node)->annotation("hami.io/mutex.lock");
    return v ? std::optional<std::string>(*v) : std::nullopt;
  }
  // A copy: holding a ledger snapshot across scheduler calls would block them.
  std::optional<scheduling::PodCharge> charge(std::string_view uid) const {
    const auto snapshot = env.scheduler->ledger().read();
    const auto* c = snapshot->pod(uid);
    return c != nullptr ? std::optional(*c) : std::nullopt;
  }
  std::vector<std::string> event_reasons() const {
    std::vector<std::string> out;
    for (const auto& e : env.cluster->events())
      out.push_back(e.reason + ": " + e.message);
    return out;
  }

  SchedulingEnv env;
};

TEST_F(Bind, WritesAllocationLocksAndBinds) {
  add_pod(pod_json("ml", "p", "uid-p", {kGpu3000}));
  EXPECT_EQ(env.scheduler->bind("ml", "p", "uid-p", "gpu-a"), "");
  const auto pod = env.cluster->pod("ml", "p");
  EXPECT_EQ(pod->node_name, "gpu-a");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-node"), "gpu-a");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-time"), std::to_string(kStartTime));
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/bind-phase"), "allocating");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/bind-time"), std::to_string(kStartTime));
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-to-allocate"),
            "GPU-gpu-a-1,NVIDIA,3000,0:;");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"),
            "GPU-gpu-a-1,NVIDIA,3000,0:;");
  EXPECT_EQ(lock("gpu-a"), "2025-06-15T15:06:40Z,ml,p");
  // The annotations now carry the charge; it is no longer a reservation.
  const auto c = charge("uid-p");
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->reservation);
  EXPECT_EQ(c->node, "gpu-a");
  EXPECT_EQ(event_reasons().back(), "BindingSucceed: Successfully binding node [gpu-a] to ml/p");
}

TEST_F(Bind, LockContentionFailsCleanly) {
  add_pod(pod_json("ml", "p", "uid-p", {kGpu3000}));
  add_pod(pod_json("ml", "holder", "uid-h", {{{"cpu", "1"}}}));
  env.cluster->patch_node_annotations(
      "gpu-a", {{"hami.io/mutex.lock", "2025-06-15T15:06:00Z,ml,holder"}}, std::nullopt);
  const std::string error = env.scheduler->bind("ml", "p", "uid-p", "gpu-a");
  EXPECT_EQ(error, "node gpu-a has been locked within 5m0s: node lock contention");
  EXPECT_EQ(lock("gpu-a"), "2025-06-15T15:06:00Z,ml,holder");
  EXPECT_FALSE(charge("uid-p"));
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"), "<none>");
  EXPECT_EQ(env.cluster->pod("ml", "p")->node_name, "");
  EXPECT_EQ(event_reasons().back(),
            "BindingFailed: node gpu-a has been locked within 5m0s: node lock contention");
}

TEST_F(Bind, MissingPodOrNodeDropsTheReservation) {
  EXPECT_EQ(env.scheduler->bind("ml", "ghost", "uid-ghost", "gpu-a"), "pod \"ghost\" not found");
  add_pod(pod_json("ml", "p", "uid-p", {kGpu3000}));
  EXPECT_EQ(env.scheduler->bind("ml", "p", "uid-p", "gpu-zz"), "node \"gpu-zz\" not found");
  EXPECT_EQ(event_reasons().back(), "BindingFailed: failed to get node gpu-zz");
  EXPECT_FALSE(charge("uid-p"));
}

TEST_F(Bind, UidMismatchIsRefused) {
  add_pod(pod_json("ml", "p", "uid-p", {kGpu3000}));
  EXPECT_EQ(env.scheduler->bind("ml", "p", "uid-old", "gpu-a"),
            "Precondition failed: UID in precondition: uid-old, UID in object meta: uid-p");
  EXPECT_EQ(env.cluster->pod("ml", "p")->node_name, "");
}

TEST_F(Bind, NoLongerFittingReleasesTheLock) {
  add_pod(pod_json("ml", "p", "uid-p", {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "9000"}}}));
  const std::string error = env.scheduler->bind("ml", "p", "uid-p", "gpu-b");
  EXPECT_EQ(error, "pod ml/p does not fit on node gpu-b: 1/1 CardInsufficientMemory");
  EXPECT_FALSE(lock("gpu-b"));
  EXPECT_FALSE(charge("uid-p"));
}

TEST_F(Bind, PodBoundElsewhereIsRefusedBeforeAnyWrite) {
  // The pod is already bound to another node: refused before the lock or
  // any annotation is written, and nothing of it changes.
  std::string json = pod_json("ml", "p", "uid-p", {kGpu3000});
  json.replace(json.find(R"("schedulerName")"), 0, R"("nodeName":"gpu-b",)");
  add_pod(json);
  const std::string before = env.cluster->pod("ml", "p")->resource_version;
  const std::string error = env.scheduler->bind("ml", "p", "uid-p", "gpu-a");
  EXPECT_EQ(error, "pod ml/p is already assigned to node \"gpu-b\"");
  EXPECT_EQ(env.cluster->pod("ml", "p")->resource_version, before);
  EXPECT_FALSE(lock("gpu-a"));
  EXPECT_FALSE(charge("uid-p"));
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"), "<none>");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-node"), "<none>");
  const auto snap = env.scheduler->ledger().read();
  for (const auto& use : snap->node("gpu-a")->use[0])
    EXPECT_EQ(use.memory_mib, 0);
}

TEST_F(Bind, InitOnlyGpuPodTakesTheLockToo) {
  // HAMi bug 7.7#5 bound init-only GPU pods without the lock.
  add_pod(pod_json("ml", "p", "uid-p", {{{"cpu", "1"}}}, {kGpu3000}));
  EXPECT_EQ(env.scheduler->bind("ml", "p", "uid-p", "gpu-a"), "");
  EXPECT_EQ(lock("gpu-a"), "2025-06-15T15:06:40Z,ml,p");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"),
            "GPU-gpu-a-1,NVIDIA,3000,0:;;");
}

TEST_F(Bind, PodWithoutManagedResourceBindsWithoutLock) {
  add_pod(pod_json("ml", "web", "uid-web", {{{"cpu", "1"}}}));
  EXPECT_EQ(env.scheduler->bind("ml", "web", "uid-web", "gpu-a"), "");
  EXPECT_EQ(env.cluster->pod("ml", "web")->node_name, "gpu-a");
  EXPECT_FALSE(lock("gpu-a"));
  EXPECT_EQ(env.annotation("ml", "web", "hami.io/bind-phase"), "<none>");
}

TEST_F(Bind, SecondPodCannotTakeTheLastRoom) {
  // gpu-b: one 8000 MiB GPU. Two 5000 MiB pods: the second bind must
  // re-fit against the first one's usage and fail.
  const Limits big = {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "5000"}};
  add_pod(pod_json("ml", "one", "uid-1", {big}));
  add_pod(pod_json("ml", "two", "uid-2", {big}));
  ASSERT_EQ(env.scheduler->bind("ml", "one", "uid-1", "gpu-b"), "");
  // The device plugin releases the lock after Allocate.
  env.cluster->patch_node_annotations("gpu-b", {{"hami.io/mutex.lock", std::nullopt}},
                                      std::nullopt);
  EXPECT_EQ(env.scheduler->bind("ml", "two", "uid-2", "gpu-b"),
            "pod ml/two does not fit on node gpu-b: 1/1 CardInsufficientMemory");
}

struct BindFilterMode : Bind {
  BindFilterMode()
      : Bind([] {
          SchedulerOptions o;
          o.allocate_at = AllocateAt::Filter;
          return o;
        }()) {}
};

TEST_F(BindFilterMode, BindAfterFilterOnlyLocksAndBinds) {
  const std::string json = pod_json("ml", "p", "uid-p", {kGpu3000});
  add_pod(json);
  const std::vector<std::string> names = {"gpu-a", "gpu-b"};
  const auto out = env.scheduler->filter(pod_from_json(json), names);
  ASSERT_EQ(out.fit.size(), 1u);
  const std::string node = names[out.fit[0]];
  const std::string allocated = env.annotation("ml", "p", "hami.io/vgpu-devices-allocated");
  ASSERT_NE(allocated, "<none>");
  EXPECT_EQ(env.scheduler->bind("ml", "p", "uid-p", node), "");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"), allocated);
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/bind-phase"), "allocating");
  EXPECT_EQ(lock(node), "2025-06-15T15:06:40Z,ml,p");
}

TEST_F(BindFilterMode, FailedBindReleasesTheFilterReservation) {
  const std::string json = pod_json("ml", "p", "uid-p", {kGpu3000});
  add_pod(json);
  add_pod(pod_json("ml", "holder", "uid-h", {{{"cpu", "1"}}}));
  const std::vector<std::string> names = {"gpu-b"};
  ASSERT_EQ(env.scheduler->filter(pod_from_json(json), names).fit.size(), 1u);
  ASSERT_TRUE(charge("uid-p"));
  env.cluster->patch_node_annotations(
      "gpu-b", {{"hami.io/mutex.lock", "2025-06-15T15:06:00Z,ml,holder"}}, std::nullopt);
  EXPECT_NE(env.scheduler->bind("ml", "p", "uid-p", "gpu-b"), "");
  EXPECT_FALSE(charge("uid-p"));
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"), "<none>");
}

}  // namespace

namespace {

using namespace hami;
using namespace hami::testing;

TEST_F(Bind, RetriedBindOfABoundPodChangesNothing) {
  add_pod(pod_json("ml", "p", "uid-p", {kGpu3000}));
  ASSERT_EQ(env.scheduler->bind("ml", "p", "uid-p", "gpu-a"), "");
  const std::string allocated = env.annotation("ml", "p", "hami.io/vgpu-devices-allocated");
  const std::string version = env.cluster->pod("ml", "p")->resource_version;
  env.cluster->patch_node_annotations("gpu-a", {{"hami.io/mutex.lock", std::nullopt}},
                                      std::nullopt);
  EXPECT_EQ(env.scheduler->bind("ml", "p", "uid-p", "gpu-a"), "");
  EXPECT_EQ(env.cluster->pod("ml", "p")->resource_version, version);
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"), allocated);
  EXPECT_FALSE(lock("gpu-a"));
  EXPECT_TRUE(charge("uid-p"));
}

// The reservation a bind makes is replaced by the charge its own written
// annotations give — for every vendor and with init containers — rather
// than kept as a reservation still in flight.
TEST(BindConfirms, WrittenAnnotationsReplaceTheReservation) {
  const std::string yaml =
      "kind: List\nitems:\n" + nvidia_node("gpu-a", 2, 8000) + mi300x_node("mi");
  SchedulingEnv env(yaml);
  const Limits nv = {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "2000"}};
  const Limits amd = {
      {"amd.com/gpu", "1"}, {"amd.com/gpumem", "16384"}, {"amd.com/gpucores", "25"}};
  for (const auto& [name, json, node] :
       {std::tuple{"init", pod_json("ml", "init", "uid-init", {nv, nv}, {nv}), "gpu-a"},
        std::tuple{"amd", pod_json("ml", "amd", "uid-amd", {amd}), "mi"}}) {
    rapidjson::Document doc;
    doc.Parse(json.c_str());
    env.cluster->upsert(doc);
    EXPECT_EQ(env.scheduler->bind("ml", name, std::string("uid-") + name, node), "") << name;
    const auto snapshot = env.scheduler->ledger().read();
    const auto* charge = snapshot->pod(std::string("uid-") + name);
    ASSERT_NE(charge, nullptr) << name;
    EXPECT_FALSE(charge->reservation) << name;
    EXPECT_EQ(charge->held_node, "") << name;
  }
}

}  // namespace
