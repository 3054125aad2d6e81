// The allocation patch of a bind is conditional on the pod's uid, on it
// being unbound and not being deleted, and on each key the bind writes
// still holding what the bind read (a value, or absent) — not on the whole
// pod's resourceVersion. kube-scheduler and others write the same pod
// (status conditions, nominatedNodeName, their own annotations and labels)
// and do not stop the bind; a change to one of the bind's keys does.
#include <algorithm>
#include <vector>

#include "bind_fixture.hpp"

namespace hami::e2e {
namespace {

struct BindPreconditions : BindFixture {
  BindPreconditions() { fake.apply(gpu_node("gpu-a", 1)); }

  // Starts with pod p1 as `pod`, then stops the cache: what the scheduler
  // read stays as it was while other writers change the server's pod.
  void start_with(const json& pod) {
    fake.apply(pod.dump());
    start();
    cluster->stop();
  }
  std::vector<hami::testing::RecordedRequest> pod_patches() const {
    std::vector<hami::testing::RecordedRequest> out;
    for (auto& r : fake.requests()) {
      if (r.method == "PATCH" && r.path == "/api/v1/namespaces/ml/pods/p1")
        out.push_back(r);
    }
    return out;
  }
  void expect_nothing_of_the_bind(const json& pod) {
    EXPECT_EQ(lock("gpu-a"), "<none>");
    EXPECT_FALSE(charged("uid-p1"));
    EXPECT_FALSE(pod["spec"].contains("nodeName") && pod["spec"]["nodeName"] == "gpu-a");
    EXPECT_EQ(annotation(pod, "hami.io/vgpu-devices-allocated"), "<none>");
    EXPECT_EQ(annotation(pod, "hami.io/vgpu-devices-to-allocate"), "<none>");
  }
};

const std::string kDevices = "GPU-gpu-a-0,NVIDIA,3000,30:;";

TEST_F(BindPreconditions, StatusAndOtherKeysChangedSinceTheReadDoNotStopTheBind) {
  json pod = gpu_pod("ml", "p1", "uid-p1", 3000, 30);
  pod["metadata"]["annotations"] = {{"example.com/owner", "team-a"}};
  pod["metadata"]["labels"] = {{"app", "train"}};
  start_with(pod);
  fake.clear_requests();
  // kube-scheduler records the failed attempt and nominates a node; the
  // owner changes its own annotation.
  rewrite_pod("p1", [](json& p) {
    p["status"]["conditions"] = json::array({{{"type", "PodScheduled"},
                                              {"status", "False"},
                                              {"reason", "Unschedulable"},
                                              {"lastProbeTime", nullptr}}});
    p["status"]["nominatedNodeName"] = "gpu-a";
    p["metadata"]["annotations"]["example.com/owner"] = "team-b";
  });

  EXPECT_EQ(bind("p1", "gpu-a"), "");
  json after = stored(fake, "Pod", "ml", "p1");
  EXPECT_EQ(after["spec"]["nodeName"], "gpu-a");
  EXPECT_EQ(after["metadata"]["annotations"], json({{"example.com/owner", "team-b"},
                                                    {"hami.io/vgpu-devices-to-allocate", kDevices},
                                                    {"hami.io/vgpu-devices-allocated", kDevices},
                                                    {"hami.io/vgpu-node", "gpu-a"},
                                                    {"hami.io/vgpu-time", "1750000000"},
                                                    {"hami.io/bind-phase", "allocating"},
                                                    {"hami.io/bind-time", "1750000000"}}));
  EXPECT_EQ(after["metadata"]["labels"], json({{"app", "train"}, {"hami.io/vgpu-node", "gpu-a"}}));
  EXPECT_EQ(after["status"]["nominatedNodeName"], "gpu-a");
  // One patch, its preconditions the uid, the pod unbound and not being
  // deleted, and each key it writes absent as read.
  const auto patches = pod_patches();
  ASSERT_EQ(patches.size(), 1u);
  EXPECT_EQ(patches[0].status, 200);
  const json ops = json::parse(patches[0].body);
  EXPECT_EQ(ops[0], json({{"op", "test"}, {"path", "/metadata/uid"}, {"value", "uid-p1"}}));
  EXPECT_EQ(ops[1], json({{"op", "test"}, {"path", "/spec/nodeName"}, {"value", nullptr}}));
  EXPECT_EQ(ops[2],
            json({{"op", "test"}, {"path", "/metadata/deletionTimestamp"}, {"value", nullptr}}));
  const auto has = [&](const json& op) {
    return std::find(ops.begin(), ops.end(), op) != ops.end();
  };
  for (const char* path :
       {"/metadata/annotations/hami.io~1vgpu-devices-to-allocate",
        "/metadata/annotations/hami.io~1vgpu-node", "/metadata/annotations/hami.io~1bind-phase",
        "/metadata/labels/hami.io~1vgpu-node"}) {
    EXPECT_TRUE(has({{"op", "test"}, {"path", path}, {"value", nullptr}})) << path;
  }
  for (const json& op : ops)
    EXPECT_NE(op["path"], "/metadata/resourceVersion") << patches[0].body;
}

// The pod had neither annotations nor labels when it was read; another
// writer gave it both. The patch shaped for absent maps is refused, and
// sent again shaped for the server's pod, its preconditions unchanged.
TEST_F(BindPreconditions, MapsCreatedSinceTheReadDoNotStopTheBind) {
  start_with(gpu_pod("ml", "p1", "uid-p1", 3000, 30));
  fake.clear_requests();
  rewrite_pod("p1", [](json& p) {
    p["metadata"]["annotations"] = {{"example.com/owner", "team-b"}};
    p["metadata"]["labels"] = {{"app", "train"}};
  });

  EXPECT_EQ(bind("p1", "gpu-a"), "");
  json after = stored(fake, "Pod", "ml", "p1");
  EXPECT_EQ(after["spec"]["nodeName"], "gpu-a");
  EXPECT_EQ(annotation(after, "example.com/owner"), "team-b");
  EXPECT_EQ(annotation(after, "hami.io/vgpu-devices-allocated"), kDevices);
  EXPECT_EQ(after["metadata"]["labels"], json({{"app", "train"}, {"hami.io/vgpu-node", "gpu-a"}}));
  const auto patches = pod_patches();
  ASSERT_EQ(patches.size(), 2u);
  EXPECT_EQ(patches[0].status, 422);
  EXPECT_EQ(patches[1].status, 200);
}

// Another writer set one of the bind's keys, absent when the bind read
// the pod: the patch is refused and nothing of the bind stays.
TEST_F(BindPreconditions, OurKeySetSinceTheReadRefusesTheWrite) {
  json pod = gpu_pod("ml", "p1", "uid-p1", 3000, 30);
  pod["metadata"]["annotations"] = {{"example.com/owner", "team-a"}};
  start_with(pod);
  rewrite_pod("p1", [](json& p) { p["metadata"]["annotations"]["hami.io/vgpu-node"] = "gpu-b"; });

  EXPECT_EQ(bind("p1", "gpu-a"),
            "Precondition failed: pod ml/p1 annotation hami.io/vgpu-node is no longer absent");
  json after = stored(fake, "Pod", "ml", "p1");
  expect_nothing_of_the_bind(after);
  EXPECT_EQ(annotation(after, "hami.io/vgpu-node"), "gpu-b");
  EXPECT_EQ(annotation(after, "hami.io/bind-phase"), "<none>");
}

// A key the pod had when read, changed since by another writer.
TEST_F(BindPreconditions, OurKeyChangedSinceTheReadRefusesTheWrite) {
  json pod = gpu_pod("ml", "p1", "uid-p1", 3000, 30);
  pod["metadata"]["annotations"] = {{"hami.io/bind-phase", "failed"}};
  start_with(pod);
  rewrite_pod("p1",
              [](json& p) { p["metadata"]["annotations"]["hami.io/bind-phase"] = "allocating"; });

  EXPECT_EQ(bind("p1", "gpu-a"),
            "Precondition failed: pod ml/p1 annotation hami.io/bind-phase is no longer \"failed\"");
  json after = stored(fake, "Pod", "ml", "p1");
  expect_nothing_of_the_bind(after);
  EXPECT_EQ(annotation(after, "hami.io/bind-phase"), "allocating");
}

// Bound by someone else since the read: the allocation is not written.
TEST_F(BindPreconditions, PodBoundSinceTheReadRefusesTheWrite) {
  start_with(gpu_pod("ml", "p1", "uid-p1", 3000, 30));
  rewrite_pod("p1", [](json& p) { p["spec"]["nodeName"] = "gpu-b"; });

  EXPECT_EQ(bind("p1", "gpu-a"), "Precondition failed: pod ml/p1 is bound to node \"gpu-b\"");
  json after = stored(fake, "Pod", "ml", "p1");
  expect_nothing_of_the_bind(after);
  EXPECT_EQ(after["spec"]["nodeName"], "gpu-b");
  EXPECT_FALSE(after["metadata"].contains("annotations"));
}

}  // namespace
}  // namespace hami::e2e
