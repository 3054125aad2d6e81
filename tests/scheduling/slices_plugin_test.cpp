// The scheduling core with a device plugin using the 1.1 and 1.2 calls
// (slices.so): pick data charged as holds (HAMI-HOST-12), extra allocation
// annotations in the same patch (HAMI-HOST-11), several picks of one device
// and the vendor's own device count check (HAMI-HOST-10); the earlier
// placements of the pod and the request mode handed to fit (HAMI-HOST-17).
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <atomic>
#include <memory>
#include <string>

#include "cluster/file_cluster.hpp"
#include "plugins/host_services.hpp"
#include "plugins/plugin_errors.hpp"
#include "plugins/plugin_registry.hpp"
#include "scheduling/allocation.hpp"
#include "scheduling/scheduler.hpp"
#include "scheduling_env.hpp"

namespace {

using namespace hami;
using scheduling::AllocateAt;
using scheduling::SchedulerOptions;

struct SlicesEnv {
  std::atomic<int64_t> now{hami::testing::kStartTime};
  host::HostServices services{[](int32_t, std::string_view, std::string_view) {},
                              [this] { return now.load(); }};
  host::PluginRegistry registry;
  std::unique_ptr<cluster::FileClusterState> cluster;
  std::unique_ptr<scheduling::Scheduler> scheduler;

  explicit SlicesEnv(std::string_view yaml, AllocateAt at = AllocateAt::Filter,
                     std::string config = "{}") {
    host::LoaderOptions loader{HAMI_SCHEDULING_FIXTURE_DIR, true};
    registry = host::PluginRegistry::load(
        loader, {{"slices", "slices.so", HAMI_KIND_DEVICE, std::move(config)}}, services);
    cluster = cluster::FileClusterState::from_text(yaml, "slices.yaml");
    SchedulerOptions options;
    options.allocate_at = at;
    options.clock = [this] { return now.load(); };
    scheduler = std::make_unique<scheduling::Scheduler>(*cluster, registry.devices(),
                                                        registry.scheduling(), options);
  }
  ~SlicesEnv() { scheduler.reset(); }

  std::string annotation(std::string_view name, std::string_view key) const {
    const auto pod = cluster->pod("ml", name);
    if (!pod)
      return "<no pod>";
    const auto v = pod->annotation(key);
    return v ? std::string(*v) : "<none>";
  }

  // Adds a pending pod asking for `slices` slices and filters it on node-a.
  scheduling::FilterOutcome filter(std::string_view name, int slices) {
    return filter_containers(name, {}, {slices});
  }

  // Adds a pending pod with the given containers' slices (init first) and
  // filters it on node-a. `first`: the example.com/slice-first limit of
  // every container (the request mode), 0 for none.
  scheduling::FilterOutcome filter_containers(std::string_view name, std::vector<int> init,
                                              std::vector<int> app, int first = 0) {
    const auto list = [first](const std::vector<int>& slices, std::string_view prefix) {
      std::string out;
      for (size_t i = 0; i < slices.size(); ++i) {
        out += std::string(i ? "," : "") + R"({"name":")" + std::string(prefix) +
               std::to_string(i) + R"(","resources":{"limits":{"example.com/slice":")" +
               std::to_string(slices[i]) + "\"" +
               (first > 0 ? R"(,"example.com/slice-first":")" + std::to_string(first) + "\"" : "") +
               "}}}";
      }
      return out;
    };
    const std::string json = R"({"kind":"Pod","metadata":{"name":")" + std::string(name) +
                             R"(","namespace":"ml","uid":"uid-)" + std::string(name) +
                             R"("},"spec":{"initContainers":[)" + list(init, "i") +
                             R"(],"containers":[)" + list(app, "c") +
                             R"(]},"status":{"phase":"Pending"}})";
    rapidjson::Document doc;
    doc.Parse(json.c_str());
    cluster->upsert(doc);
    const auto model = hami::testing::pod_from_json(json);
    const std::vector<std::string> nodes = {"node-a"};
    return scheduler->filter(model, nodes);
  }

  static std::string pod(std::string_view name, int slices) {
    return R"({"kind":"Pod","metadata":{"name":")" + std::string(name) +
           R"(","namespace":"ml","uid":"uid-)" + std::string(name) +
           R"("},"spec":{"schedulerName":"hami-scheduler","containers":[{"name":"c","resources":{"limits":{"example.com/slice":")" +
           std::to_string(slices) + R"("}}}]},"status":{"phase":"Pending"}})";
  }
};

// One device with three slices.
constexpr const char* kNode = R"(
kind: List
items:
- kind: Node
  metadata:
    name: node-a
    annotations:
      example.com/slice-register: "dev-0=3"
)";

std::string with_pod(std::string_view annotations) {
  return std::string(kNode) + R"(
- kind: Pod
  metadata:
    name: running
    namespace: ml
    uid: uid-running
    annotations:
)" + std::string(annotations) +
         R"(
  spec:
    nodeName: node-a
    containers: [{name: c, resources: {limits: {example.com/slice: "1"}}}]
  status: {phase: Running}
)";
}

TEST(Abi11Scheduling, PicksOneDeviceSeveralTimesAndWritesTheExtraAnnotationInTheSamePatch) {
  SlicesEnv env(kNode);
  const auto out = env.filter("p", 2);
  ASSERT_EQ(out.error, "");
  ASSERT_EQ(out.fit.size(), 1u) << (out.failed.empty() ? "" : out.failed.begin()->second);
  EXPECT_EQ(env.annotation("p", "example.com/slices-allocated"),
            "dev-0,SLICE,1024,25:dev-0,SLICE,1024,25:;");
  EXPECT_EQ(env.annotation("p", "example.com/slices"), "0:dev-0:slice=0;0:dev-0:slice=1;");
  EXPECT_EQ(env.annotation("p", "hami.io/vgpu-node"), "node-a");
}

TEST(Abi11Scheduling, AReservationsPickDataHoldsItsSlices) {
  SlicesEnv env(kNode);
  ASSERT_EQ(env.filter("p", 2).fit.size(), 1u);
  // One slice is left: a second pod of one fits and takes slice 2, a third
  // does not fit.
  ASSERT_EQ(env.filter("q", 1).fit.size(), 1u);
  EXPECT_EQ(env.annotation("q", "example.com/slices"), "0:dev-0:slice=2;");
  const auto third = env.filter("r", 1);
  EXPECT_TRUE(third.fit.empty());
  ASSERT_EQ(third.failed.count("node-a"), 1u);
  EXPECT_EQ(third.failed.at("node-a"), "1/1 SliceExhausted");
}

TEST(Abi11Scheduling, AnAppContainerSeesTheSlicesOfTheEarlierAppContainers) {
  SlicesEnv env(kNode);
  EXPECT_EQ(env.filter_containers("big", {}, {2, 2}).failed.at("node-a"), "1/1 SliceExhausted");
  ASSERT_EQ(env.filter_containers("p", {}, {2, 1}).fit.size(), 1u);
  EXPECT_EQ(env.annotation("p", "example.com/slices"),
            "0:dev-0:slice=0;0:dev-0:slice=1;1:dev-0:slice=2;");
}

TEST(Abi11Scheduling, InitContainersHoldNothingForEachOtherOrForTheAppContainers) {
  SlicesEnv env(kNode);
  // Init containers run one after another: each may take every slice.
  ASSERT_EQ(env.filter_containers("p", {3, 3}, {3}).fit.size(), 1u);
  EXPECT_EQ(env.annotation("p", "example.com/slices"),
            "0:dev-0:slice=0;0:dev-0:slice=1;0:dev-0:slice=2;1:dev-0:slice=0;1:dev-0:slice=1;"
            "1:dev-0:slice=2;2:dev-0:slice=0;2:dev-0:slice=1;2:dev-0:slice=2;");
  // But the pod holds all of them against other pods.
  EXPECT_EQ(env.filter("q", 1).failed.at("node-a"), "1/1 SliceExhausted");
}

TEST(Abi11Scheduling, HoldsAreRebuiltFromThePodsAnnotations) {
  SlicesEnv env(with_pod(R"(      hami.io/vgpu-node: node-a
      example.com/slices-allocated: "dev-0,SLICE,1024,25:dev-0,SLICE,1024,25:;"
      example.com/slices: "0:dev-0:slice=0;0:dev-0:slice=2;")"));
  ASSERT_EQ(env.filter("p", 1).fit.size(), 1u);
  EXPECT_EQ(env.annotation("p", "example.com/slices"), "0:dev-0:slice=1;");
  EXPECT_EQ(env.filter("q", 1).failed.at("node-a"), "1/1 SliceExhausted");
}

TEST(Abi11Scheduling, APodWithoutPickDataHoldsAnEmptyEntryAndTheVendorFailsClosed) {
  SlicesEnv env(with_pod(R"(      hami.io/vgpu-node: node-a
      example.com/slices-allocated: "dev-0,SLICE,1024,25:;")"));
  const auto out = env.filter("p", 1);
  EXPECT_TRUE(out.fit.empty());
  EXPECT_EQ(out.failed.at("node-a"), "1/1 CardNotHealth");
}

TEST(Abi11Scheduling, ADeletedPodReleasesItsHolds) {
  SlicesEnv env(with_pod(R"(      hami.io/vgpu-node: node-a
      example.com/slices-allocated: "dev-0,SLICE,1024,25:dev-0,SLICE,1024,25:dev-0,SLICE,1024,25:;"
      example.com/slices: "0:dev-0:slice=0;0:dev-0:slice=1;0:dev-0:slice=2;")"));
  EXPECT_EQ(env.filter("p", 1).failed.at("node-a"), "1/1 SliceExhausted");
  env.cluster->delete_pod("ml", "running");
  const auto out = env.filter("q", 1);
  ASSERT_EQ(out.fit.size(), 1u);
  EXPECT_EQ(env.annotation("q", "example.com/slices"), "0:dev-0:slice=0;");
}

TEST(Abi11Scheduling, ARefilterReleasesThePodsOwnHolds) {
  SlicesEnv env(kNode);
  ASSERT_EQ(env.filter("p", 3).fit.size(), 1u);
  // The same pod again: its own three slices are free for it.
  const auto again = env.filter("p", 3);
  ASSERT_EQ(again.fit.size(), 1u) << (again.failed.empty() ? "" : again.failed.begin()->second);
  EXPECT_EQ(env.annotation("p", "example.com/slices"),
            "0:dev-0:slice=0;0:dev-0:slice=1;0:dev-0:slice=2;");
}

TEST(Abi11Scheduling, MoreSlicesThanTheNodeHasIsTheVendorsNodeInsufficientDeviceAndUnresolvable) {
  SlicesEnv env(kNode);
  // Two slices on one device: more picks than devices, which the host
  // itself would refuse without HAMI_VENDOR_MULTI_PICK.
  ASSERT_EQ(env.filter("p", 2).fit.size(), 1u);
  const auto out = env.filter("q", 4);
  EXPECT_TRUE(out.fit.empty());
  EXPECT_TRUE(out.failed.empty());
  ASSERT_EQ(out.unresolvable.count("node-a"), 1u);
  EXPECT_EQ(out.unresolvable.at("node-a"), "NodeInsufficientDevice");
}

TEST(Abi11Scheduling, BindModeWritesTheExtraAnnotationWithTheAllocation) {
  SlicesEnv env(kNode, AllocateAt::Bind);
  const std::string json = SlicesEnv::pod("p", 2);
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  env.cluster->upsert(doc);
  ASSERT_EQ(env.scheduler->bind("ml", "p", "uid-p", "node-a"), "");
  EXPECT_EQ(env.annotation("p", "example.com/slices"), "0:dev-0:slice=0;0:dev-0:slice=1;");
  EXPECT_EQ(env.annotation("p", "hami.io/bind-phase"), "allocating");
}

TEST(Abi11Scheduling, RemovingAnAllocationRemovesTheExtraAnnotationToo) {
  SlicesEnv env(kNode);
  const auto patch = scheduling::allocation_removal(env.registry.devices());
  std::vector<std::string> keys;
  for (const auto& w : patch.annotations) {
    EXPECT_FALSE(w.value.has_value()) << w.key;
    keys.push_back(w.key);
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"example.com/slices-allocated", "example.com/slices",
                                            "hami.io/vgpu-node"}));
}

TEST(Abi11Scheduling, AnAnnotationTheVendorDoesNotListFailsTheFilter) {
  SlicesEnv env(kNode, AllocateAt::Filter, R"({"rogueKey": true})");
  const auto out = env.filter("p", 1);
  EXPECT_TRUE(out.fit.empty());
  EXPECT_EQ(out.error,
            "slices.annotate_allocation: invalid output: writes 'example.com/rogue', which "
            "allocation_annotations does not list");
  EXPECT_EQ(env.annotation("p", "example.com/slices"), "<none>");
}

std::string node_lock(const cluster::FileClusterState& cluster) {
  const auto node = cluster.node("node-a");
  for (const hami_kv& kv : node->annotations()) {
    if (std::string_view(kv.key.ptr, kv.key.len) == "hami.io/mutex.lock")
      return std::string(kv.value.ptr, kv.value.len);
  }
  return "<none>";
}

void add_pod(SlicesEnv& env, std::string_view name, int slices) {
  const std::string json = SlicesEnv::pod(name, slices);
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  env.cluster->upsert(doc);
}

TEST(Abi11Scheduling, ASharedLockVendorsBindLocksTheNode) {
  SlicesEnv env(kNode, AllocateAt::Bind);
  add_pod(env, "p", 1);
  add_pod(env, "q", 1);
  ASSERT_EQ(env.scheduler->bind("ml", "p", "uid-p", "node-a"), "");
  EXPECT_NE(node_lock(*env.cluster), "<none>");
  EXPECT_EQ(env.scheduler->bind("ml", "q", "uid-q", "node-a"),
            "node node-a has been locked within 5m0s: node lock contention");
}

TEST(Abi11Scheduling, ANoLockVendorsBindTakesNoNodeLock) {
  // HAMI_NODE_LOCK_NONE: its node-side plugin never releases the lock, so
  // a lock would keep the next pod off the node until it expired.
  SlicesEnv env(kNode, AllocateAt::Bind, R"({"nodeLock": "none"})");
  add_pod(env, "p", 1);
  add_pod(env, "q", 1);
  ASSERT_EQ(env.scheduler->bind("ml", "p", "uid-p", "node-a"), "");
  EXPECT_EQ(node_lock(*env.cluster), "<none>");
  EXPECT_EQ(env.annotation("p", "hami.io/bind-phase"), "allocating");
  EXPECT_EQ(env.scheduler->bind("ml", "q", "uid-q", "node-a"), "");
  EXPECT_EQ(node_lock(*env.cluster), "<none>");
  EXPECT_EQ(env.annotation("q", "example.com/slices"), "0:dev-0:slice=1;");
}

TEST(Abi11Scheduling, AnUnknownNodeLockValueRefusesThePlugin) {
  try {
    SlicesEnv env(kNode, AllocateAt::Bind, R"({"nodeLock": 7})");
    FAIL() << "loaded";
  } catch (const std::exception& e) {
    EXPECT_EQ(std::string(e.what()),
              "plugin 'slices' (" HAMI_SCHEDULING_FIXTURE_DIR
              "/slices.so): slices.describe: invalid output: node_lock 7 is not a "
              "HAMI_NODE_LOCK_ value");
  }
}

// ABI 1.2, HAMI-HOST-17: node-a registering `devices` ("<id>=<slices>,...").
std::string node_with(std::string_view devices) {
  return R"(
kind: List
items:
- kind: Node
  metadata:
    name: node-a
    annotations:
      example.com/slice-register: ")" +
         std::string(devices) + "\"\n";
}
const std::string kTwoDevices = node_with("dev-0=3,dev-1=3");

TEST(Abi12Scheduling, AContainerSeesTheDevicesTheEarlierContainersOfItsPhaseTook) {
  // Without the placements, the second container spreads over both devices.
  SlicesEnv plain(kTwoDevices);
  ASSERT_EQ(plain.filter_containers("p", {}, {2, 2}).fit.size(), 1u);
  EXPECT_EQ(plain.annotation("p", "example.com/slices"),
            "0:dev-0:slice=0;0:dev-0:slice=1;1:dev-0:slice=2;1:dev-1:slice=0;");
  // With them, it may use only dev-0, which has one slice left.
  SlicesEnv same(kTwoDevices, AllocateAt::Filter, R"({"samePlaced": true})");
  EXPECT_EQ(same.filter_containers("p", {}, {2, 2}).failed.at("node-a"),
            "1/2 CardNotFoundCustomFilterRule");
  ASSERT_EQ(same.filter_containers("q", {}, {2, 1}).fit.size(), 1u);
  EXPECT_EQ(same.annotation("q", "example.com/slices"),
            "0:dev-0:slice=0;0:dev-0:slice=1;1:dev-0:slice=2;");
}

TEST(Abi12Scheduling, AppContainersDoNotSeeTheInitContainersPlacements) {
  // The init container takes dev-0; the app container is its phase's first
  // and may spread over both devices.
  SlicesEnv env(node_with("dev-0=1,dev-1=3"), AllocateAt::Filter, R"({"samePlaced": true})");
  ASSERT_EQ(env.filter_containers("p", {1}, {2}).fit.size(), 1u);
  EXPECT_EQ(env.annotation("p", "example.com/slices"),
            "0:dev-0:slice=0;1:dev-0:slice=0;1:dev-1:slice=0;");
  // Init containers see the earlier init containers' devices: the second
  // one may use only dev-0, which has one slice.
  SlicesEnv fresh(node_with("dev-0=1,dev-1=3"), AllocateAt::Filter, R"({"samePlaced": true})");
  const auto q = fresh.filter_containers("q", {1, 2}, {});
  ASSERT_EQ(q.failed.count("node-a"), 1u);
  EXPECT_EQ(q.failed.at("node-a"), "1/2 CardNotFoundCustomFilterRule");
}

TEST(Abi12Scheduling, TheRequestModeReachesFitUnchanged) {
  SlicesEnv env(kTwoDevices);
  ASSERT_EQ(env.filter_containers("p", {}, {1}, 2).fit.size(), 1u);
  EXPECT_EQ(env.annotation("p", "example.com/slices"), "0:dev-0:slice=2;");
}

}  // namespace
