// The NUMA refit (Scheduler::refit, docs/refit.md): every refusal with its
// exact text and nothing changed, the move of one container's devices with
// the ledger before and after, the byte-preserving rewrite of that
// container's segment, and failed writes that leave everything as it was.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "flaky_cluster.hpp"
#include "scheduling/allocation_segments.hpp"
#include "scheduling_env.hpp"

namespace {

using namespace hami;
using namespace hami::testing;
using scheduling::RefitOutcome;
using scheduling::RefitRequest;

constexpr std::string_view kPending = "hami.io/vgpu-devices-to-allocate";
constexpr std::string_view kAllocated = "hami.io/vgpu-devices-allocated";

struct PodSpec {
  std::string name = "p";
  std::string pending = "GPU-gpu-a-0,NVIDIA,3000,0:;";
  std::string allocated = "GPU-gpu-a-0,NVIDIA,3000,0:;";
  std::string phase_annotation = "allocating";
  std::vector<std::string> app = {"3000"};  // gpumem per app container, one GPU each
  std::vector<std::string> init;
  std::string extra_annotations;
};

std::string containers_yaml(const std::vector<std::string>& mems, const std::string& prefix) {
  std::string out = "[";
  for (size_t i = 0; i < mems.size(); ++i) {
    out += (i > 0 ? ", " : "") + std::string("{name: ") + prefix + std::to_string(i) +
           ", resources: {limits: {nvidia.com/gpu: \"1\", nvidia.com/gpumem: \"" + mems[i] +
           "\"}}}";
  }
  return out + "]";
}

std::string pod_yaml(const PodSpec& s) {
  std::string out = "- kind: Pod\n  metadata:\n    name: " + s.name +
                    "\n    namespace: ml\n    uid: uid-" + s.name +
                    "\n    annotations:\n      hami.io/vgpu-node: gpu-a\n";
  if (!s.phase_annotation.empty())
    out += "      hami.io/bind-phase: " + s.phase_annotation + "\n";
  out += "      " + std::string(kPending) + ": \"" + s.pending + "\"\n";
  out += "      " + std::string(kAllocated) + ": \"" + s.allocated + "\"\n";
  out += s.extra_annotations;
  out += "  spec:\n    nodeName: gpu-a\n    schedulerName: hami-scheduler\n    containers: " +
         containers_yaml(s.app, "c") + "\n";
  if (!s.init.empty())
    out += "    initContainers: " + containers_yaml(s.init, "init") + "\n";
  out += "  status: {phase: Pending}\n";
  return out;
}

std::string running_yaml(const std::string& name, const std::string& allocated) {
  return "- kind: Pod\n  metadata:\n    name: " + name + "\n    namespace: other\n    uid: uid-" +
         name + "\n    annotations:\n      hami.io/vgpu-node: gpu-a\n      " +
         std::string(kAllocated) + ": \"" + allocated +
         "\"\n  spec:\n    nodeName: gpu-a\n    containers: [{name: c}]\n  status: {phase: "
         "Running}\n";
}

// gpu-a: four 8000 MiB GPUs, GPU-gpu-a-0/1 on NUMA 0, 2/3 on NUMA 1.
std::string cluster(const std::vector<std::string>& items) {
  std::string out =
      "kind: List\nitems:\n" + nvidia_node("gpu-a", 4, 8000) + nvidia_node("gpu-b", 1, 8000);
  for (const auto& i : items)
    out += i;
  return out;
}

RefitRequest request(std::vector<std::string> allowed, int64_t container = 0,
                     std::string name = "p") {
  RefitRequest r;
  r.pod_uid = "uid-" + name;
  r.pod_namespace = "ml";
  r.pod_name = name;
  r.node_name = "gpu-a";
  r.container_index = container;
  r.device_type = "NVIDIA";
  r.allowed_device_uuids = std::move(allowed);
  return r;
}

// "id:slots/memory/cores" per device charge, in the charge's order.
std::string charge_text(const scheduling::Scheduler& s, std::string_view uid) {
  const auto snapshot = s.ledger().read();
  const auto* c = snapshot->pod(uid);
  if (c == nullptr)
    return "<none>";
  std::string out = c->reservation ? "reservation " : "";
  for (const auto& d : c->devices) {
    out += d.device_id + ":" + std::to_string(d.slots) + "/" + std::to_string(d.memory_mib) + "/" +
           std::to_string(d.cores) + " ";
  }
  return out + "held " + std::to_string(c->held_devices.size());
}

// Used memory per GPU of gpu-a, "m0 m1 m2 m3".
std::string node_memory(const scheduling::Scheduler& s) {
  const auto snapshot = s.ledger().read();
  const auto* e = snapshot->node("gpu-a");
  std::string out;
  for (const auto& u : e->use[0])
    out += (out.empty() ? "" : " ") + std::to_string(u.memory_mib);
  return out;
}

std::string outcome_text(const RefitOutcome& o) {
  return std::string(o.succeeded ? "ok" : "refused") + " [" + o.container_devices + "] [" +
         o.failure_reason + "]";
}

struct Refit : ::testing::Test {
  void start(const std::vector<std::string>& items, scheduling::SchedulerOptions options = {}) {
    env = std::make_unique<SchedulingEnv>(cluster(items), std::move(options));
  }
  std::string refused(const RefitRequest& r) {
    const std::string before_p = env->annotation("ml", "p", kPending);
    const std::string before_a = env->annotation("ml", "p", kAllocated);
    const std::string before_rv =
        env->cluster->pod("ml", "p") ? env->cluster->pod("ml", "p")->resource_version : "<no pod>";
    const std::string before_charge = charge_text(*env->scheduler, "uid-p");
    const RefitOutcome o = env->scheduler->refit(r);
    EXPECT_FALSE(o.succeeded);
    EXPECT_EQ(o.container_devices, "");
    EXPECT_EQ(env->annotation("ml", "p", kPending), before_p);
    EXPECT_EQ(env->annotation("ml", "p", kAllocated), before_a);
    if (env->cluster->pod("ml", "p")) {
      EXPECT_EQ(env->cluster->pod("ml", "p")->resource_version, before_rv);
    }
    EXPECT_EQ(charge_text(*env->scheduler, "uid-p"), before_charge);
    return o.failure_reason;
  }
  std::unique_ptr<SchedulingEnv> env;
};

TEST_F(Refit, RefusesIncompleteRequests) {
  start({pod_yaml({})});
  for (int field = 0; field < 4; ++field) {
    RefitRequest r = request({"GPU-gpu-a-2"});
    (field == 0   ? r.pod_uid
     : field == 1 ? r.pod_namespace
     : field == 2 ? r.pod_name
                  : r.node_name)
        .clear();
    EXPECT_EQ(refused(r),
              "incomplete refit request: pod UID, namespace, name, and node are required");
  }
  EXPECT_EQ(refused(request({})), "refit request carries an empty allowed device set");
  EXPECT_EQ(refused(request(std::vector<std::string>(513, "GPU-gpu-a-2"))),
            "refit request carries 513 allowed devices, limit is 512");
  RefitRequest r = request({"GPU-gpu-a-2"});
  r.device_type = "nvidia";
  EXPECT_EQ(refused(r), "unknown device type \"nvidia\"");
}

TEST_F(Refit, AcceptsExactlyTheLimitOfAllowedDevices) {
  start({pod_yaml({})});
  std::vector<std::string> allowed(511, "GPU-elsewhere");
  allowed.push_back("GPU-gpu-a-2");
  const RefitOutcome o = env->scheduler->refit(request(allowed));
  EXPECT_EQ(outcome_text(o), "ok [GPU-gpu-a-2,NVIDIA,3000,0:] []");
}

TEST_F(Refit, RefusesWhenTheGateIsClosed) {
  scheduling::SchedulerOptions options;
  options.gate = [] { return std::string("not the leader: replica b leads"); };
  start({pod_yaml({})}, std::move(options));
  EXPECT_EQ(refused(request({"GPU-gpu-a-2"})), "not the leader: replica b leads");
}

TEST_F(Refit, RefusesPodsItDoesNotTrackAsAsked) {
  start({pod_yaml({})});
  RefitRequest r = request({"GPU-gpu-a-2"});
  r.pod_uid = "uid-x";
  EXPECT_EQ(refused(r), "pod uid-x is not tracked by the scheduler");
  r = request({"GPU-gpu-a-2"});
  r.pod_name = "q";
  EXPECT_EQ(refused(r), "pod uid-p does not match ml/q");
  r = request({"GPU-gpu-a-2"});
  r.pod_namespace = "ns";
  EXPECT_EQ(refused(r), "pod uid-p does not match ns/p");
  r = request({"GPU-gpu-b-0"});
  r.node_name = "gpu-b";
  EXPECT_EQ(refused(r), "pod ml/p is tracked on node gpu-a, not gpu-b");
}

TEST_F(Refit, RefusesAPodThatIsNotAllocating) {
  PodSpec s;
  s.phase_annotation = "success";
  start({pod_yaml(s)});
  EXPECT_EQ(refused(request({"GPU-gpu-a-2"})),
            "pod ml/p is not allocating on node gpu-a (hami.io/bind-phase \"success\")");
  s.phase_annotation = "";
  start({pod_yaml(s)});
  EXPECT_EQ(refused(request({"GPU-gpu-a-2"})),
            "pod ml/p is not allocating on node gpu-a (hami.io/bind-phase \"\")");
}

TEST_F(Refit, RefusesContainersOutsideThePodOrNamedOtherwise) {
  PodSpec s;
  s.init = {"1000"};
  s.pending = ";GPU-gpu-a-0,NVIDIA,3000,0:;";
  s.allocated = "GPU-gpu-a-1,NVIDIA,1000,0:;GPU-gpu-a-0,NVIDIA,3000,0:;";
  start({pod_yaml(s)});
  EXPECT_EQ(refused(request({"GPU-gpu-a-2"}, 2)),
            "container index 2 is outside the pod's containers");
  EXPECT_EQ(refused(request({"GPU-gpu-a-2"}, -1)),
            "container index -1 is outside the pod's containers");
  RefitRequest r = request({"GPU-gpu-a-2"}, 1);
  r.container_name = "init0";
  EXPECT_EQ(refused(r), "container index 1 is \"c0\", not \"init0\"");
  // Index 0 is the init container, whose pending segment was consumed.
  r = request({"GPU-gpu-a-2"}, 0);
  r.container_name = "init0";
  EXPECT_EQ(refused(r), "container 0 has no pending NVIDIA allocation to refit");
}

TEST_F(Refit, RefusesAContainerWithoutARecordedAllocation) {
  PodSpec s;
  s.allocated = ";";
  start({pod_yaml(s)});
  EXPECT_EQ(refused(request({"GPU-gpu-a-2"})), "container 0 has no recorded NVIDIA allocation");
}

TEST_F(Refit, AlreadyAllowedDevicesChangeNothing) {
  start({pod_yaml({})});
  const std::string rv = env->cluster->pod("ml", "p")->resource_version;
  const RefitOutcome o = env->scheduler->refit(request({"GPU-gpu-a-1", "GPU-gpu-a-0"}));
  EXPECT_EQ(outcome_text(o), "ok [GPU-gpu-a-0,NVIDIA,3000,0:] []");
  EXPECT_EQ(env->cluster->pod("ml", "p")->resource_version, rv);
  EXPECT_EQ(env->annotation("ml", "p", kAllocated), "GPU-gpu-a-0,NVIDIA,3000,0:;");
  EXPECT_EQ(charge_text(*env->scheduler, "uid-p"), "GPU-gpu-a-0:1/3000/0 held 0");
}

TEST_F(Refit, RefusesHeterogeneousReservations) {
  PodSpec s;
  s.pending = "GPU-gpu-a-0,NVIDIA,3000,0:GPU-gpu-a-1,NVIDIA,2000,0:;";
  s.allocated = s.pending;
  start({pod_yaml(s)});
  EXPECT_EQ(refused(request({"GPU-gpu-a-2", "GPU-gpu-a-3"})),
            "container 0 reserves differing amounts per device; the refit does not support "
            "heterogeneous reservations");
}

TEST_F(Refit, RefusesWhenNoAllowedDeviceIsOnTheNode) {
  start({pod_yaml({})});
  EXPECT_EQ(refused(request({"GPU-gpu-b-0", "GPU-nowhere"})),
            "none of the allowed devices is a NVIDIA device of node gpu-a");
}

TEST_F(Refit, RefusesWhenNoAllowedDeviceFits) {
  start({pod_yaml({}), running_yaml("big", "GPU-gpu-a-2,NVIDIA,7000,0:;")});
  EXPECT_EQ(refused(request({"GPU-gpu-a-2", "GPU-gpu-b-0"})),
            "no allowed device fits: 1/1 CardInsufficientMemory");
}

TEST_F(Refit, MovesTheContainerAndItsCharge) {
  start({pod_yaml({}), running_yaml("other", "GPU-gpu-a-3,NVIDIA,1000,0:;")});
  EXPECT_EQ(node_memory(*env->scheduler), "3000 0 0 1000");
  EXPECT_EQ(charge_text(*env->scheduler, "uid-p"), "GPU-gpu-a-0:1/3000/0 held 0");
  const RefitOutcome o = env->scheduler->refit(request({"GPU-gpu-a-3"}));
  EXPECT_EQ(outcome_text(o), "ok [GPU-gpu-a-3,NVIDIA,3000,0:] []");
  EXPECT_EQ(env->annotation("ml", "p", kPending), "GPU-gpu-a-3,NVIDIA,3000,0:;");
  EXPECT_EQ(env->annotation("ml", "p", kAllocated), "GPU-gpu-a-3,NVIDIA,3000,0:;");
  EXPECT_EQ(env->annotation("ml", "p", "hami.io/bind-phase"), "allocating");
  EXPECT_EQ(charge_text(*env->scheduler, "uid-p"), "GPU-gpu-a-3:1/3000/0 held 0");
  EXPECT_EQ(node_memory(*env->scheduler), "0 0 0 4000");
  const auto& events = env->cluster->events();
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().reason, "NumaRefitSucceed");
  EXPECT_EQ(events.back().message,
            "NUMA refit moved container 0 from [GPU-gpu-a-0] to [GPU-gpu-a-3]");
}

TEST_F(Refit, RewritesOnlyThatContainersSegment) {
  // Container 0 (6000 MiB on GPU-gpu-a-0) has been handed to its container:
  // its pending segment is consumed (blank). Container 1 is refitted; it
  // sees container 0 beside it, so GPU-gpu-a-0 (2000 MiB left) cannot take
  // its 3000 MiB.
  PodSpec s;
  s.app = {"6000", "3000"};
  s.pending = ";GPU-gpu-a-1,NVIDIA,3000,0:;";
  s.allocated = "GPU-gpu-a-0,NVIDIA,6000,0:;GPU-gpu-a-1,NVIDIA,3000,0:;";
  start({pod_yaml(s)});
  EXPECT_EQ(charge_text(*env->scheduler, "uid-p"),
            "GPU-gpu-a-0:1/6000/0 GPU-gpu-a-1:1/3000/0 held 0");
  RefitRequest r = request({"GPU-gpu-a-0", "GPU-gpu-a-3"}, 1);
  r.container_name = "c1";
  const RefitOutcome o = env->scheduler->refit(r);
  EXPECT_EQ(outcome_text(o), "ok [GPU-gpu-a-3,NVIDIA,3000,0:] []");
  EXPECT_EQ(env->annotation("ml", "p", kPending), ";GPU-gpu-a-3,NVIDIA,3000,0:;");
  EXPECT_EQ(env->annotation("ml", "p", kAllocated),
            "GPU-gpu-a-0,NVIDIA,6000,0:;GPU-gpu-a-3,NVIDIA,3000,0:;");
  EXPECT_EQ(node_memory(*env->scheduler), "6000 0 0 3000");
}

TEST_F(Refit, RefusesWhenTheQuotaNoLongerHolds) {
  start({pod_yaml({}),
         "- kind: ResourceQuota\n  metadata: {name: gpu, namespace: ml}\n  spec: {hard: "
         "{limits.nvidia.com/gpumem: \"2000\"}}\n"});
  EXPECT_EQ(refused(request({"GPU-gpu-a-2"})),
            "refit would exceed the NVIDIA resource quota in namespace ml");
}

struct RefitWrites : Refit {
  void SetUp() override { start({pod_yaml({})}); }
  FlakyCluster& flaky() {
    if (!flaky_) {
      flaky_ = std::make_unique<FlakyCluster>(*env->cluster);
      scheduler_ = std::make_unique<scheduling::Scheduler>(*flaky_, env->registry.devices(),
                                                           env->registry.scheduling(),
                                                           scheduling::SchedulerOptions{});
    }
    return *flaky_;
  }
  std::string refused_through_flaky(const RefitRequest& r) {
    const std::string before_p = env->annotation("ml", "p", kPending);
    const std::string before_a = env->annotation("ml", "p", kAllocated);
    const std::string before_charge = charge_text(*scheduler_, "uid-p");
    const std::string before_memory = node_memory(*scheduler_);
    const RefitOutcome o = scheduler_->refit(r);
    EXPECT_FALSE(o.succeeded);
    EXPECT_EQ(env->annotation("ml", "p", kPending), before_p);
    EXPECT_EQ(env->annotation("ml", "p", kAllocated), before_a);
    EXPECT_EQ(charge_text(*scheduler_, "uid-p"), before_charge);
    EXPECT_EQ(node_memory(*scheduler_), before_memory);
    return o.failure_reason;
  }
  // Declared after env: destroyed before it.
  std::unique_ptr<FlakyCluster> flaky_;
  std::unique_ptr<scheduling::Scheduler> scheduler_;
  void TearDown() override {
    scheduler_.reset();
    flaky_.reset();
  }
};

TEST_F(RefitWrites, AFailedPatchLeavesAnnotationsAndLedger) {
  flaky().fail_write = true;
  EXPECT_EQ(refused_through_flaky(request({"GPU-gpu-a-2"})),
            "cannot patch pod annotations: injected: pod write refused");
  EXPECT_EQ(charge_text(*scheduler_, "uid-p"), "GPU-gpu-a-0:1/3000/0 held 0");
}

TEST_F(RefitWrites, AConflictingVersionFailsTheRefit) {
  flaky().before_pod_write = [this](const cluster::PodMetadataPatch&) {
    flaky_->before_pod_write = nullptr;
    // Another writer changes the pod after the refit judged it.
    env->cluster->patch_pod_metadata("ml", "p", {{}, {{"touched", "yes"}}}, "uid-p");
  };
  EXPECT_EQ(refused_through_flaky(request({"GPU-gpu-a-2"})),
            "cannot patch pod annotations: Operation cannot be fulfilled on pods \"p\": the "
            "object has been modified; please apply your changes to the latest version and try "
            "again");
  EXPECT_EQ(env->cluster->pod("ml", "p")->label("touched"), std::optional<std::string_view>("yes"));
  EXPECT_EQ(charge_text(*scheduler_, "uid-p"), "GPU-gpu-a-0:1/3000/0 held 0");
}

TEST(AllocationSegments, ReplaceOneSegmentKeepingEveryOtherByte) {
  using scheduling::replace_segment;
  using scheduling::segment_at;
  EXPECT_EQ(segment_at("a:;;b:;", ";", 0), std::optional<std::string_view>("a:"));
  EXPECT_EQ(segment_at("a:;;b:;", ";", 1), std::optional<std::string_view>(""));
  EXPECT_EQ(segment_at("a:;;b:;", ";", 2), std::optional<std::string_view>("b:"));
  EXPECT_EQ(segment_at("a:;;b:;", ";", 3), std::nullopt);
  EXPECT_EQ(segment_at("a:;", "", 0), std::nullopt);
  EXPECT_EQ(replace_segment("a:;;b:;tail", ";", 2, "c:"),
            std::optional<std::string>("a:;;c:;tail"));
  EXPECT_EQ(replace_segment("a:;;b:;", ";", 1, "x:"), std::optional<std::string>("a:;x:;b:;"));
  EXPECT_EQ(replace_segment("a:;", ";", 1, "x:"), std::nullopt);
}

}  // namespace

namespace vendor_data {

using namespace hami;
using namespace hami::testing;

// gpu-m: GPU-a (whole-device shares) and GPU-m in MIG mode (1g.5gb, seven
// placements).
std::string mig_cluster(std::string_view allocated, std::string_view mig_annotation) {
  std::string out = R"(
kind: List
items:
- kind: Node
  metadata:
    name: gpu-m
    annotations:
      hami.io/node-nvidia-register: '[{"id":"GPU-a","count":7,"devmem":40960,"devcore":100,"type":"NVIDIA A100-SXM4-40GB","mode":"hami-core","health":true},{"id":"GPU-m","count":7,"devmem":40960,"devcore":100,"type":"NVIDIA A100-SXM4-40GB","mode":"mig","health":true,"migProfiles":[{"name":"1g.5gb","memoryMB":5120,"core":14,"sliceCount":1,"placements":[{"start":0,"size":1},{"start":1,"size":1},{"start":2,"size":1},{"start":3,"size":1},{"start":4,"size":1},{"start":5,"size":1},{"start":6,"size":1}]}]}]'
  status: {allocatable: {nvidia.com/gpu: "14"}}
- kind: Pod
  metadata:
    name: p
    namespace: ml
    uid: uid-p
    annotations:
      hami.io/vgpu-node: gpu-m
      hami.io/bind-phase: allocating
      hami.io/vgpu-devices-to-allocate: ")" +
                    std::string(allocated) + "\"\n      hami.io/vgpu-devices-allocated: \"" +
                    std::string(allocated) + "\"\n";
  if (!mig_annotation.empty())
    out += "      hami.io/vgpu-mig-allocations: '" + std::string(mig_annotation) + "'\n";
  out += R"(  spec:
    nodeName: gpu-m
    schedulerName: hami-scheduler
    containers: [{name: c0, resources: {limits: {nvidia.com/gpu: "1", nvidia.com/gpumem: "4000"}}}]
  status: {phase: Pending}
)";
  return out;
}

scheduling::RefitRequest mig_request(std::vector<std::string> allowed) {
  scheduling::RefitRequest r;
  r.pod_uid = "uid-p";
  r.pod_namespace = "ml";
  r.pod_name = "p";
  r.node_name = "gpu-m";
  r.device_type = "NVIDIA";
  r.allowed_device_uuids = std::move(allowed);
  return r;
}

TEST(RefitVendorData, APartitionIsNotMoved) {
  SchedulingEnv env(mig_cluster(
      "GPU-m,NVIDIA,5120,14:;",
      R"([{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-m","profile":"1g.5gb","placement":{"start":0,"size":1},"migUUID":"MIG-a","gpuInstanceID":7,"computeInstanceID":0}])"));
  const auto o = env.scheduler->refit(mig_request({"GPU-a"}));
  EXPECT_FALSE(o.succeeded);
  EXPECT_EQ(o.failure_reason,
            "container 0 device GPU-m carries vendor data (a partition); the refit moves "
            "whole-device shares only");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"), "GPU-m,NVIDIA,5120,14:;");
}

TEST(RefitVendorData, AFitThatWouldTakeAPartitionIsRefused) {
  SchedulingEnv env(mig_cluster("GPU-a,NVIDIA,4000,0:;", ""));
  const auto o = env.scheduler->refit(mig_request({"GPU-m"}));
  EXPECT_FALSE(o.succeeded);
  EXPECT_EQ(o.failure_reason,
            "allowed device GPU-m carries vendor data (a partition); the refit moves whole-device "
            "shares only");
  EXPECT_EQ(env.annotation("ml", "p", "hami.io/vgpu-devices-allocated"), "GPU-a,NVIDIA,4000,0:;");
  const auto snapshot = env.scheduler->ledger().read();
  const auto* charge = snapshot->pod("uid-p");
  ASSERT_NE(charge, nullptr);
  EXPECT_FALSE(charge->reservation);
  ASSERT_EQ(charge->devices.size(), 1u);
  EXPECT_EQ(charge->devices[0].device_id, "GPU-a");
}

}  // namespace vendor_data
