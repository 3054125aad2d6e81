// The registration loop's triggers (HAMi reference §3.4 and bug 7.7#12):
// leader-only passes, wake(), node add/delete and registration changes —
// and no feedback from the loop's own writes.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "scheduling/health_loop.hpp"
#include "scheduling_env.hpp"

namespace {

using namespace hami;
using namespace hami::testing;
using namespace std::chrono_literals;

constexpr auto kNever = std::chrono::hours(1);  // the period never fires in these tests

scheduling::SchedulerOptions no_initial_pass() {
  scheduling::SchedulerOptions o;
  o.initial_health_check = false;
  return o;
}

std::string two_nodes() {
  return "kind: List\nitems:\n" + nvidia_node("gpu", 1, 8000) +
         "- kind: Node\n  metadata: {name: cpu}\n";
}

// Polls `done` every millisecond for at most 10 s.
template <typename F>
bool eventually(F done) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

std::string handshake(const SchedulingEnv& env) {
  const auto v = env.cluster->node("gpu")->annotation("hami.io/node-handshake");
  return v ? std::string(*v) : "<none>";
}

void upsert(SchedulingEnv& env, const std::string& yaml_item) {
  const auto tmp = cluster::FileClusterState::from_text("kind: List\nitems:\n" + yaml_item, "t");
  rapidjson::Document doc;
  doc.Parse(tmp->to_json().c_str());
  for (const auto& item : doc["items"].GetArray())
    env.cluster->upsert(item);
}

TEST(HealthWake, FollowerRunsNoPassAndBecomingLeaderRunsOneAtOnce) {
  SchedulingEnv env(two_nodes(), no_initial_pass());
  std::atomic<bool> leader{false};
  std::atomic<int> asked{0};
  scheduling::HealthLoop loop(*env.scheduler, *env.cluster, 5ms, [&] {
    ++asked;
    return leader.load();
  });
  ASSERT_TRUE(eventually([&] { return asked.load() >= 5; }));
  EXPECT_EQ(loop.passes(), 0u);
  EXPECT_EQ(handshake(env), "<none>");

  // Leadership gained: the owner wakes the loop.
  leader = true;
  loop.wake();
  ASSERT_TRUE(eventually([&] { return loop.passes() >= 1; }));
  EXPECT_EQ(handshake(env).rfind("Requesting_", 0), 0u) << handshake(env);
}

TEST(HealthWake, WakeRunsAPassWithoutWaitingForThePeriod) {
  SchedulingEnv env(two_nodes(), no_initial_pass());
  scheduling::HealthLoop loop(*env.scheduler, *env.cluster, kNever);
  // Registering replays the nodes: that alone asks for the first pass.
  ASSERT_TRUE(eventually([&] { return loop.passes() == 1; }));
  EXPECT_EQ(loop.woken_passes(), 1u);
  loop.wake();
  loop.wake();
  ASSERT_TRUE(eventually([&] { return loop.passes() >= 2; }));
  EXPECT_EQ(loop.woken_passes(), loop.passes());
}

TEST(HealthWake, NodeChangesThatMatterWakeTheLoop) {
  SchedulingEnv env(two_nodes(), no_initial_pass());
  scheduling::HealthLoop loop(*env.scheduler, *env.cluster, kNever);
  ASSERT_TRUE(eventually([&] { return loop.passes() == 1; }));

  // A new GPU node registers: it gets its handshake without a 15 s wait.
  upsert(env, nvidia_node("gpu-new", 2, 8000));
  ASSERT_TRUE(eventually([&] {
    return env.cluster->node("gpu-new")->annotation("hami.io/node-handshake").has_value();
  }));
  const unsigned after_add = loop.passes();

  // The device plugin re-registers with different devices.
  upsert(env, nvidia_node("gpu", 2, 16000));
  ASSERT_TRUE(eventually([&] { return loop.passes() > after_add; }));
  const unsigned after_register = loop.passes();

  // Allocatable changes (the NVIDIA health input).
  std::string node = nvidia_node("gpu", 2, 16000);
  node.replace(node.find("nvidia.com/gpu: \"20\""), 20, "nvidia.com/gpu: \"0\"");
  upsert(env, node);
  ASSERT_TRUE(eventually([&] { return loop.passes() > after_register; }));
  const unsigned after_allocatable = loop.passes();

  env.cluster->delete_node("gpu-new");
  ASSERT_TRUE(eventually([&] { return loop.passes() > after_allocatable; }));
}

TEST(HealthWake, OwnWritesAndLockChangesDoNotWakeTheLoop) {
  SchedulingEnv env(two_nodes(), no_initial_pass());
  scheduling::HealthLoop loop(*env.scheduler, *env.cluster, kNever);
  ASSERT_TRUE(eventually([&] { return loop.passes() == 1; }));
  // The pass wrote the handshake (a node update the loop sees). Annotation
  // changes outside the registration — the node lock, the handshake — must
  // not start passes either.
  EXPECT_EQ(handshake(env).rfind("Requesting_", 0), 0u);
  env.cluster->patch_node_annotations("gpu", {{"hami.io/mutex.lock", "2025-06-15T15:06:00Z,a,b"}},
                                      std::nullopt);
  env.cluster->patch_node_annotations("gpu", {{"hami.io/node-handshake", "Deleted_x"}},
                                      std::nullopt);
  env.cluster->patch_node_annotations("cpu", {{"example.com/other", "1"}}, std::nullopt);
  // A pass, if one were started, would take well under this; an endless
  // series would show as a growing count.
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(loop.passes(), 1u);
  EXPECT_EQ(loop.woken_passes(), 1u);
}

}  // namespace
