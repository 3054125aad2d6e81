// A bind that fails after writing the allocation and cannot remove it
// again: the pod still carries the allocation annotations (the source of
// truth for usage), so the ledger must keep counting it — otherwise the next
// pod is handed the same room.
#include <gtest/gtest.h>

#include <optional>
#include <string_view>
#include <utility>

#include "flaky_cluster.hpp"
#include "scheduling_env.hpp"

namespace {

using namespace hami;
using namespace hami::testing;

// Two one-GPU nodes of 8000 MiB and two pending pods, p and q, of 6000 MiB
// each; the scheduler writes through a FlakyCluster.
struct FailedBind : ::testing::Test {
  SchedulingEnv env{"kind: List\nitems:\n" + nvidia_node("gpu-a", 1, 8000) +
                    nvidia_node("gpu-b", 1, 8000)};
  FlakyCluster flaky{*env.cluster};
  scheduling::Scheduler scheduler{flaky, env.registry.devices(), env.registry.scheduling(),
                                  options()};
  const Limits big = {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "6000"}};
  const k8s::PodModel q = pod_from_json(pod_json("ml", "q", "uid-q", {big}));

  FailedBind() {
    for (const char* name : {"p", "q"}) {
      rapidjson::Document doc;
      doc.Parse(pod_json("ml", name, std::string("uid-") + name, {big}).c_str());
      env.cluster->upsert(doc);
    }
  }
  // p's bind to gpu-a fails after writing its allocation, and so does the
  // removal: p is left carrying the allocation, unbound.
  void strand_p_on_gpu_a() {
    flaky.fail_bind = true;
    flaky.fail_removal = true;
    EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "injected: binding failed");
    flaky.fail_bind = false;
    flaky.fail_removal = false;
  }
  // A copy: a ledger snapshot held across scheduler calls would block them.
  std::optional<scheduling::PodCharge> charge_of(std::string_view uid) const {
    const auto snapshot = scheduler.ledger().read();
    const scheduling::PodCharge* charge = snapshot->pod(uid);
    return charge != nullptr ? std::optional(*charge) : std::nullopt;
  }
  scheduling::SchedulerOptions options() {
    scheduling::SchedulerOptions o;
    o.clock = [this] { return env.now.load(); };
    return o;
  }
};

TEST_F(FailedBind, AllocationThatCouldNotBeRemovedStillCounts) {
  flaky.fail_bind = true;
  flaky.fail_removal = true;
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "injected: binding failed");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"),
            "GPU-gpu-a-0,NVIDIA,6000,0:;");
  // The lock is released all the same.
  EXPECT_FALSE(env.cluster->node("gpu-a")->annotation("hami.io/mutex.lock"));

  const std::vector<std::string> names = {"gpu-a"};
  EXPECT_TRUE(scheduler.filter(q, names).fit.empty());
  flaky.fail_bind = false;
  EXPECT_NE(scheduler.bind("ml", "q", "uid-q", "gpu-a"), "");
  EXPECT_EQ(env.cluster->pod("ml", "q")->node_name, "");

  // The retried bind of p (kube-scheduler retries) reuses its own room.
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "");
  EXPECT_EQ(env.cluster->pod("ml", "p")->node_name, "gpu-a");
}

// The retry of such a bind fails before its own allocation is written:
// the pod still carries the first attempt's allocation, so dropping the
// retry's reservation must leave that charge in place.
TEST_F(FailedBind, FailedRetryKeepsTheAllocationStillWritten) {
  strand_p_on_gpu_a();
  flaky.fail_write = true;
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "injected: pod write refused");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"),
            "GPU-gpu-a-0,NVIDIA,6000,0:;");
  const auto charge = charge_of("uid-p");
  ASSERT_TRUE(charge);
  EXPECT_FALSE(charge->reservation);
  EXPECT_EQ(charge->node, "gpu-a");

  flaky.fail_write = false;
  const std::vector<std::string> names = {"gpu-a"};
  const auto out = scheduler.filter(q, names);
  EXPECT_TRUE(out.fit.empty());
  EXPECT_NE(scheduler.bind("ml", "q", "uid-q", "gpu-a"), "");
  EXPECT_EQ(env.cluster->pod("ml", "q")->node_name, "");
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "");
}

// The retry goes to another node. Until its write lands the pod still
// holds the first allocation on the first node; a write that fails leaves
// it there. Neither room may be handed out meanwhile — not even after an
// unrelated update of the pod, which still carries the first allocation.
TEST_F(FailedBind, RetryElsewhereHoldsBothRoomsUntilItsWriteLands) {
  strand_p_on_gpu_a();

  const std::vector<std::string> names = {"gpu-a", "gpu-b"};
  std::vector<std::string> seen;  // what q's filter found during p's write
  bool looked = false;
  flaky.before_pod_write = [&](const cluster::PodMetadataPatch&) {
    if (std::exchange(looked, true))
      return;
    const auto fits = [&] {
      std::string out;
      for (size_t i : scheduler.filter(q, names).fit)
        out += names[i] + " ";
      return out;
    };
    seen.push_back(fits());
    // Another writer touches p: the version still names gpu-a.
    cluster::PodMetadataPatch unrelated;
    unrelated.annotations.push_back({"example.com/touched", "yes"});
    env.cluster->patch_pod_metadata("ml", "p", unrelated, std::nullopt);
    seen.push_back(fits());
  };
  flaky.fail_write = true;
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-b"), "injected: pod write refused");
  EXPECT_EQ(seen, (std::vector<std::string>{"", ""}));

  // The write failed: p holds gpu-a only, and gpu-b is free again.
  flaky.fail_write = false;
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-node"), "gpu-a");
  const auto out = scheduler.filter(q, names);
  ASSERT_EQ(out.fit.size(), 1u);
  EXPECT_EQ(names[out.fit[0]], "gpu-b");
  const auto charge = charge_of("uid-p");
  ASSERT_TRUE(charge);
  EXPECT_FALSE(charge->reservation);
  EXPECT_EQ(charge->node, "gpu-a");
  EXPECT_EQ(charge->held_node, "");
  {
    const auto snapshot = scheduler.ledger().read();
    EXPECT_EQ(snapshot->node("gpu-b")->use[0][0].memory_mib, 0);
    EXPECT_EQ(snapshot->node("gpu-a")->use[0][0].memory_mib, 6000);
  }

  // A retry whose write lands moves p: gpu-a is free, gpu-b taken.
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-b"), "");
  const auto after = scheduler.filter(q, names);
  ASSERT_EQ(after.fit.size(), 1u);
  EXPECT_EQ(names[after.fit[0]], "gpu-a");
}

// A write reported failed may have been stored (a timeout, a 5xx after the
// commit): the host removes what it may have written, in both allocation
// modes, and the room is free again.
TEST_F(FailedBind, UnconfirmedWriteIsRemovedAgain) {
  flaky.fail_write_after_storing = true;
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "injected: pod write timed out");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"), "<none>");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-node"), "<none>");
  EXPECT_EQ(scheduler.ledger().read()->pod("uid-p"), nullptr);

  scheduling::SchedulerOptions filter_mode = options();
  filter_mode.allocate_at = scheduling::AllocateAt::Filter;
  scheduling::Scheduler filtering(flaky, env.registry.devices(), env.registry.scheduling(),
                                  filter_mode);
  const std::vector<std::string> names = {"gpu-a"};
  EXPECT_EQ(filtering.filter(q, names).error, "injected: pod write timed out");
  EXPECT_EQ(env.annotation("ml", "q", "hami.io/vgpu-devices-allocated"), "<none>");
  EXPECT_EQ(filtering.ledger().read()->pod("uid-q"), nullptr);

  flaky.fail_write_after_storing = false;
  EXPECT_EQ(scheduler.bind("ml", "q", "uid-q", "gpu-a"), "");
}

// The write timed out but was stored, the removal failed, and the cluster
// state has not seen the write yet: the room stays reserved until it does.
TEST_F(FailedBind, UnconfirmedWriteThatCouldNotBeRemovedKeepsTheRoom) {
  const std::vector<std::string> names = {"gpu-a"};
  flaky.defer_write = true;
  flaky.fail_removal = true;
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "injected: pod write timed out");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"), "<none>");
  EXPECT_TRUE(scheduler.filter(q, names).fit.empty());
  // The write shows up: p's allocation counts from its annotations.
  flaky.store_deferred();
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"),
            "GPU-gpu-a-0,NVIDIA,6000,0:;");
  const auto charge = charge_of("uid-p");
  ASSERT_TRUE(charge);
  EXPECT_FALSE(charge->reservation);
  EXPECT_TRUE(scheduler.filter(q, names).fit.empty());
  // p's retry goes through and keeps its room.
  flaky.defer_write = false;
  flaky.fail_removal = false;
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "");
  EXPECT_TRUE(scheduler.filter(q, names).fit.empty());
}

// The node lock was stored but the write reported failed: the bind fails
// and the lock, this pod's, is released rather than left to expire.
TEST_F(FailedBind, LockStoredBeforeAnErrorIsReleased) {
  flaky.fail_node_write_after_storing = true;
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "injected: node write timed out");
  EXPECT_FALSE(env.cluster->node("gpu-a")->annotation("hami.io/mutex.lock"));
  EXPECT_EQ(scheduler.bind("ml", "q", "uid-q", "gpu-a"), "");
}

TEST_F(FailedBind, RemovedAllocationFreesTheRoom) {
  flaky.fail_bind = true;
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "injected: binding failed");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"), "<none>");
  flaky.fail_bind = false;
  EXPECT_EQ(scheduler.bind("ml", "q", "uid-q", "gpu-a"), "");
}

}  // namespace
