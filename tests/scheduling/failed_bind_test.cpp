// A bind that fails after writing the allocation and cannot remove it
// again: the pod still carries the allocation annotations (the source of
// truth for usage), so the ledger must keep counting it — otherwise the next
// pod is handed the same room.
#include <gtest/gtest.h>

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

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
  // p's bind to gpu-a fails after writing its allocation (the Binding is
  // known not stored), and so does taking the allocation back: p is left
  // carrying it, unbound.
  void strand_p_on_gpu_a() {
    flaky.fail_bind_unbound = true;
    flaky.fail_removal = true;
    EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "injected: binding failed");
    flaky.fail_bind_unbound = false;
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
  flaky.fail_bind_unbound = true;
  flaky.fail_removal = true;
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "injected: binding failed");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"),
            "GPU-gpu-a-0,NVIDIA,6000,0:;");
  // The lock is released all the same: the pod is known not bound.
  EXPECT_FALSE(env.cluster->node("gpu-a")->annotation("hami.io/mutex.lock"));

  const std::vector<std::string> names = {"gpu-a"};
  EXPECT_TRUE(scheduler.filter(q, names).fit.empty());
  flaky.fail_bind_unbound = false;
  EXPECT_NE(scheduler.bind("ml", "q", "uid-q", "gpu-a"), "");
  EXPECT_EQ(env.cluster->pod("ml", "q")->node_name, "");

  // The retried bind of p (kube-scheduler retries) reuses its own room.
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "");
  EXPECT_EQ(env.cluster->pod("ml", "p")->node_name, "gpu-a");
}

// A Binding whose outcome is unknown (a 5xx or timeout, and the pod could
// not be read back) may have bound the pod: its allocation is not taken
// back and the node lock stays for the node-side plugin. The retried bind
// reads the pod live and finishes.
TEST_F(FailedBind, BindingOfUnknownOutcomeKeepsAllocationAndLock) {
  flaky.fail_bind = true;
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "injected: binding failed");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"),
            "GPU-gpu-a-0,NVIDIA,6000,0:;");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-node"), "gpu-a");
  EXPECT_TRUE(env.cluster->node("gpu-a")->annotation("hami.io/mutex.lock"));
  const std::vector<std::string> names = {"gpu-a"};
  EXPECT_TRUE(scheduler.filter(q, names).fit.empty());

  flaky.fail_bind = false;
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "");
  EXPECT_EQ(env.cluster->pod("ml", "p")->node_name, "gpu-a");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"),
            "GPU-gpu-a-0,NVIDIA,6000,0:;");
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
// commit): the pod, read back, shows it was, and the bind goes on with it;
// in filter mode the filter's answer stands.
TEST_F(FailedBind, WriteReportedFailedButReadBackStoredGoesOn) {
  flaky.fail_write_after_storing = true;
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "");
  EXPECT_EQ(env.cluster->pod("ml", "p")->node_name, "gpu-a");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"),
            "GPU-gpu-a-0,NVIDIA,6000,0:;");

  scheduling::SchedulerOptions filter_mode = options();
  filter_mode.allocate_at = scheduling::AllocateAt::Filter;
  scheduling::Scheduler filtering(flaky, env.registry.devices(), env.registry.scheduling(),
                                  filter_mode);
  const std::vector<std::string> names = {"gpu-b"};
  const auto out = filtering.filter(q, names);
  EXPECT_EQ(out.error, "");
  EXPECT_EQ(out.fit, std::vector<size_t>{0});
  EXPECT_EQ(env.annotation("ml", "q", "hami.io/vgpu-devices-allocated"),
            "GPU-gpu-b-0,NVIDIA,6000,0:;");
}

// The same when the pod cannot be read back either: what may have been
// stored is taken back (only while it is as written), in both allocation
// modes, and the room is free again.
TEST_F(FailedBind, UnconfirmedWriteIsTakenBack) {
  flaky.fail_write_after_storing = true;
  flaky.fail_live_reads = true;
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "injected: pod write timed out");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"), "<none>");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-node"), "<none>");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/bind-phase"), "<none>");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/bind-time"), "<none>");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-time"), "<none>");
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
  flaky.fail_live_reads = false;
  EXPECT_EQ(scheduler.bind("ml", "q", "uid-q", "gpu-a"), "");
}

// The write timed out but was stored, neither a read-back nor taking it
// back succeeded, and the cluster state has not seen the write yet: the
// room stays reserved (unconfirmed) until a newer version of the pod
// settles it.
TEST_F(FailedBind, UnconfirmedWriteThatCouldNotBeRemovedKeepsTheRoom) {
  const std::vector<std::string> names = {"gpu-a"};
  flaky.defer_write = true;
  flaky.fail_removal = true;
  flaky.fail_live_reads = true;
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "injected: pod write timed out");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"), "<none>");
  {
    const auto charge = charge_of("uid-p");
    ASSERT_TRUE(charge);
    EXPECT_TRUE(charge->reservation);
    ASSERT_TRUE(charge->write);
    EXPECT_TRUE(charge->write->unconfirmed);
  }
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
  flaky.fail_live_reads = false;
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "");
  EXPECT_TRUE(scheduler.filter(q, names).fit.empty());
}

// The allocation write is conditional on its own keys, not on the pod's
// resourceVersion: another writer's version of the pod (here an unrelated
// annotation) may come before the write's own. Not carrying the write, it
// settles nothing — the room stays reserved, and the write may still land.
TEST_F(FailedBind, AnotherWritersVersionDoesNotSettleAnUnconfirmedWrite) {
  const std::vector<std::string> names = {"gpu-a"};
  flaky.defer_write = true;
  flaky.fail_removal = true;
  flaky.fail_live_reads = true;
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "injected: pod write timed out");
  flaky.defer_write = false;
  flaky.fail_removal = false;
  flaky.fail_live_reads = false;
  cluster::PodMetadataPatch unrelated;
  unrelated.annotations.push_back({"example.com/touched", "yes"});
  env.cluster->patch_pod_metadata("ml", "p", unrelated, std::nullopt);
  {
    const auto charge = charge_of("uid-p");
    ASSERT_TRUE(charge);
    EXPECT_TRUE(charge->reservation);
    ASSERT_TRUE(charge->write);
    EXPECT_TRUE(charge->write->unconfirmed);
  }
  EXPECT_TRUE(scheduler.filter(q, names).fit.empty());
  // The write lands after that version: its keys are as it expected.
  flaky.store_deferred();
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"),
            "GPU-gpu-a-0,NVIDIA,6000,0:;");
  EXPECT_EQ(env.annotation("ml", "p", "example.com/touched"), "yes");
  EXPECT_TRUE(scheduler.filter(q, names).fit.empty());
}

// An unconfirmed write that was in fact never stored, and the pod bound
// elsewhere since: the write, conditional on the pod being unbound, can no
// longer be stored, so that version settles it and the room is free.
TEST_F(FailedBind, UnconfirmedWriteIsSettledByAVersionItCanNoLongerBeStoredOn) {
  const std::vector<std::string> names = {"gpu-a"};
  flaky.defer_write = true;
  flaky.fail_removal = true;
  flaky.fail_live_reads = true;
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "injected: pod write timed out");
  EXPECT_TRUE(scheduler.filter(q, names).fit.empty());
  flaky.defer_write = false;
  flaky.fail_removal = false;
  flaky.fail_live_reads = false;
  env.cluster->bind("ml", "p", "uid-p", "gpu-b");
  EXPECT_FALSE(charge_of("uid-p"));
  EXPECT_FALSE(scheduler.filter(q, names).fit.empty());
  // The held-back write is refused now.
  EXPECT_THROW(flaky.store_deferred(), cluster::ClusterError);
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"), "<none>");
}

// The node lock was stored but the write reported failed: the bind fails
// and the lock, this pod's, is released rather than left to expire.
TEST_F(FailedBind, LockStoredBeforeAnErrorIsReleased) {
  flaky.fail_node_write_after_storing = true;
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "injected: node write timed out");
  EXPECT_FALSE(env.cluster->node("gpu-a")->annotation("hami.io/mutex.lock"));
  EXPECT_EQ(scheduler.bind("ml", "q", "uid-q", "gpu-a"), "");
}

// Found by the model test: a Binding of unknown outcome kept p's lock on
// gpu-a; p's retry went to gpu-b and succeeded, and the lock on gpu-a
// stayed for a pod that was not binding there.
TEST_F(FailedBind, RetryElsewhereReleasesTheEarlierAttemptsLock) {
  flaky.fail_bind = true;
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "injected: binding failed");
  ASSERT_TRUE(env.cluster->node("gpu-a")->annotation("hami.io/mutex.lock"));
  flaky.fail_bind = false;
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-b"), "");
  EXPECT_FALSE(env.cluster->node("gpu-a")->annotation("hami.io/mutex.lock"));
  EXPECT_TRUE(env.cluster->node("gpu-b")->annotation("hami.io/mutex.lock"));
  EXPECT_EQ(scheduler.bind("ml", "q", "uid-q", "gpu-a"), "");
}

// Found by a model campaign: the same in filter mode, when filter places
// the pod on another node before its bind.
TEST_F(FailedBind, RefilterElsewhereReleasesTheEarlierAttemptsLock) {
  scheduling::SchedulerOptions filter_mode = options();
  filter_mode.allocate_at = scheduling::AllocateAt::Filter;
  scheduling::Scheduler filtering(flaky, env.registry.devices(), env.registry.scheduling(),
                                  filter_mode);
  const k8s::PodModel p = pod_from_json(pod_json("ml", "p", "uid-p", {big}));
  ASSERT_EQ(filtering.filter(p, std::vector<std::string>{"gpu-a"}).error, "");
  flaky.fail_bind = true;
  EXPECT_EQ(filtering.bind("ml", "p", "uid-p", "gpu-a"), "injected: binding failed");
  ASSERT_TRUE(env.cluster->node("gpu-a")->annotation("hami.io/mutex.lock"));
  flaky.fail_bind = false;
  ASSERT_EQ(filtering.filter(p, std::vector<std::string>{"gpu-b"}).error, "");
  EXPECT_FALSE(env.cluster->node("gpu-a")->annotation("hami.io/mutex.lock"));
  EXPECT_EQ(filtering.bind("ml", "p", "uid-p", "gpu-b"), "");
}

// Found by the model test: release() charged a finished pod's leftover
// annotations again after its failed filter write.
TEST_F(FailedBind, AFinishedPodIsNotChargedAgainOnRelease) {
  scheduling::SchedulerOptions filter_mode = options();
  filter_mode.allocate_at = scheduling::AllocateAt::Filter;
  scheduling::Scheduler filtering(flaky, env.registry.devices(), env.registry.scheduling(),
                                  filter_mode);
  const std::vector<std::string> names = {"gpu-a"};
  ASSERT_EQ(filtering.filter(q, names).error, "");
  // q finishes while still carrying its allocation.
  rapidjson::Document doc;
  std::string done = pod_json("ml", "q", "uid-q", {big}, {},
                              R"({"hami.io/vgpu-node":"gpu-a","hami.io/vgpu-devices-allocated":)"
                              R"("GPU-gpu-a-0,NVIDIA,6000,0:;"})");
  done.replace(done.find(R"("phase":"Pending")"), 17, R"("phase":"Succeeded")");
  doc.Parse(done.c_str());
  env.cluster->upsert(doc);
  ASSERT_EQ(filtering.ledger().read()->pod("uid-q"), nullptr);
  flaky.fail_write = true;
  EXPECT_EQ(filtering.filter(q, names).error, "pod ml/q is not pending (phase Succeeded)");
  EXPECT_EQ(filtering.ledger().read()->pod("uid-q"), nullptr);
}

TEST_F(FailedBind, RemovedAllocationFreesTheRoom) {
  flaky.fail_bind_unbound = true;
  EXPECT_EQ(scheduler.bind("ml", "p", "uid-p", "gpu-a"), "injected: binding failed");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"), "<none>");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/bind-phase"), "<none>");
  EXPECT_FALSE(env.cluster->node("gpu-a")->annotation("hami.io/mutex.lock"));
  flaky.fail_bind_unbound = false;
  EXPECT_EQ(scheduler.bind("ml", "q", "uid-q", "gpu-a"), "");
}

}  // namespace
