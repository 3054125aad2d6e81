// KubernetesClusterState writes against the fake API server: pod metadata
// patches, conditional node patches, the node lock between two hosts,
// bindings and events.
#include <gtest/gtest.h>

#include <ctime>
#include <regex>

#include "cluster/node_lock.hpp"
#include "cluster_env.hpp"
#include "kube/write_bodies.hpp"
#include "recording_watcher.hpp"
#include "test_files.hpp"

namespace hami::kube {
namespace {

using namespace std::chrono_literals;
using cluster::ClusterError;
using cluster::ErrorKind;
using hami::testing::FakeApiServer;
using testing::eventually;

ErrorKind kind_of(const std::function<void()>& write, std::string* message = nullptr) {
  try {
    write();
  } catch (const ClusterError& e) {
    if (message != nullptr)
      *message = e.what();
    return e.kind();
  }
  ADD_FAILURE() << "expected ClusterError";
  return ErrorKind::Invalid;
}

class KubeClusterWrites : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.apply(testing::node_object("gpu-1"));
    server_.apply(testing::node_object("gpu-2"));
    server_.apply(testing::pod_object("ml", "p1", "uid-1"));
    server_.apply(testing::pod_object("ml", "p2", "uid-2"));
    state_ = start();
  }

  std::unique_ptr<KubernetesClusterState> start(
      KubeClusterOptions options = testing::fast_options()) {
    auto state = std::make_unique<KubernetesClusterState>(testing::client_for(server_.url()),
                                                          std::move(options));
    state->start();
    EXPECT_TRUE(state->wait_synced(5s)) << state->sync_status();
    return state;
  }

  rapidjson::Document server_object(const char* kind, const char* ns, const char* name) {
    const auto text = server_.object(kind, ns, name);
    EXPECT_TRUE(text.has_value());
    return testing::parse(text.value_or("{}"));
  }

  FakeApiServer server_;
  std::unique_ptr<KubernetesClusterState> state_;
};

TEST_F(KubeClusterWrites, PodMetadataPatchIsVisibleAtOnce) {
  testing::RecordingWatcher watcher;
  state_->watch(watcher);
  watcher.clear();
  server_.clear_requests();
  cluster::PodMetadataPatch patch;
  patch.annotations = {{"hami.io/bind-phase", "allocating"}};
  patch.labels = {{"hami.io/vgpu", "1"}};
  const std::string before_rv = state_->pod("ml", "p1")->resource_version;
  state_->patch_pod_metadata("ml", "p1", patch, std::string_view("uid-1"));
  // No waiting: the reply is in the cache before the call returns.
  const auto pod = state_->pod("ml", "p1");
  ASSERT_TRUE(pod);
  EXPECT_EQ(*pod->annotation("hami.io/bind-phase"), "allocating");
  const auto stored = server_object("Pod", "ml", "p1");
  EXPECT_EQ(pod->resource_version, stored["metadata"]["resourceVersion"].GetString());
  ASSERT_FALSE(watcher.matching("pod+ ml/p1").empty());
  EXPECT_EQ(watcher.matching("pod+ ml/p1")[0], "pod+ ml/p1@" + pod->resource_version);

  // With a uid to check, the write is a JSON Patch led by its `test`; the
  // pod has no labels, so the label map is added whole behind a test that
  // it is still absent.
  const auto sent = testing::requests_to(server_, "PATCH", "/api/v1/namespaces/ml/pods/p1");
  ASSERT_EQ(sent.size(), 1U);
  EXPECT_EQ(sent[0].content_type, "application/json-patch+json");
  EXPECT_EQ(
      sent[0].body,
      R"([{"op":"test","path":"/metadata/uid","value":"uid-1"},)"
      R"({"op":"test","path":"/metadata/labels","value":null},)"
      R"({"op":"add","path":"/metadata/annotations/hami.io~1bind-phase","value":"allocating"},)"
      R"({"op":"add","path":"/metadata/labels","value":{"hami.io/vgpu":"1"}}])");
  EXPECT_NE(pod->resource_version, before_rv);

  // Removing a key.
  cluster::PodMetadataPatch remove;
  remove.annotations = {{"hami.io/bind-phase", std::nullopt}};
  state_->patch_pod_metadata("ml", "p1", remove, std::nullopt);
  EXPECT_FALSE(state_->pod("ml", "p1")->annotation("hami.io/bind-phase"));
  // The watch event of the same writes arrives later and changes nothing.
  const std::string final_rv = state_->pod("ml", "p1")->resource_version;
  ASSERT_TRUE(server_.wait_open_watches(4, 5s));
  server_.apply(testing::pod_object("ml", "marker", "uid-m"));
  ASSERT_TRUE(eventually([&] { return state_->pod("ml", "marker") != nullptr; }));
  EXPECT_EQ(state_->pod("ml", "p1")->resource_version, final_rv);
  EXPECT_FALSE(state_->pod("ml", "p1")->annotation("hami.io/bind-phase"));
  state_->unwatch(watcher);
}

// A write reply ahead of the watch: the pod was deleted and re-created
// under its name while the pod watch was down, and a patch by name lands
// on the new pod. The reply deletes the old uid first. The watch, back
// later, replays the old uid's DELETED and the creation, both older than
// the reply: the new pod stays as the reply left it.
TEST_F(KubeClusterWrites, PatchReplyOfANewUidDeletesTheOldPodFirst) {
  ASSERT_TRUE(server_.wait_open_watches(4, 5s));
  testing::RecordingWatcher watcher;
  state_->watch(watcher);
  watcher.clear();
  server_.fail_next("GET", "/api/v1/pods", 500, 1000);  // the pod watch stays down
  server_.drop_watches();
  ASSERT_TRUE(server_.remove("Pod", "ml", "p1"));
  server_.apply(testing::pod_object("ml", "p1", "uid-1b"));
  ASSERT_EQ(state_->pod("ml", "p1")->uid, "uid-1");

  state_->patch_pod_metadata("ml", "p1", {{{"hami.io/k", "v"}}, {}}, std::nullopt);
  EXPECT_EQ(watcher.pod_uids(),
            (std::vector<std::string>{"pod- ml/p1 uid-1 ", "pod+ ml/p1 uid-1b "}));
  ASSERT_EQ(state_->pod("ml", "p1")->uid, "uid-1b");

  // The watch comes back once the injected failures are used up. Each GET
  // here takes one of the 1000 and the watch's relists take the rest, so
  // the 1001st GET at the latest is answered, however few relists ran (a
  // bound of 1000 failed whenever none ran in between).
  const auto client = testing::client_for(server_.url());
  bool listed = false;
  for (int i = 0; i <= 1000 && !listed; ++i) {
    try {
      client->get("/api/v1/pods");
      listed = true;
    } catch (const ApiError&) {
    }
  }
  ASSERT_TRUE(listed);
  server_.apply(testing::pod_object("ml", "marker", "uid-m"));
  ASSERT_TRUE(eventually([&] { return state_->pod("ml", "marker") != nullptr; }));
  EXPECT_EQ(watcher.pod_uids(), (std::vector<std::string>{"pod- ml/p1 uid-1 ", "pod+ ml/p1 uid-1b ",
                                                          "pod+ ml/marker uid-m "}));
  const auto pod = state_->pod("ml", "p1");
  ASSERT_TRUE(pod);
  EXPECT_EQ(pod->uid, "uid-1b");
  EXPECT_EQ(*pod->annotation("hami.io/k"), "v");
}

TEST_F(KubeClusterWrites, PodMetadataPatchErrors) {
  server_.clear_requests();
  std::string message;
  EXPECT_EQ(kind_of([&] { state_->patch_pod_metadata("ml", "p1", {}, std::string_view("other")); },
                    &message),
            ErrorKind::Conflict);
  EXPECT_EQ(message, "Precondition failed: UID in precondition: other, UID in object meta: uid-1");
  EXPECT_TRUE(testing::requests_to(server_, "PATCH", "/api/v1/namespaces/ml/pods/p1").empty());
  EXPECT_EQ(
      kind_of([&] { state_->patch_pod_metadata("ml", "absent", {}, std::nullopt); }, &message),
      ErrorKind::NotFound);
  EXPECT_NE(message.find("\"absent\" not found"), std::string::npos) << message;
  server_.fail_next("PATCH", "/api/v1/namespaces/ml/pods/p1", 503);
  EXPECT_EQ(kind_of([&] { state_->patch_pod_metadata("ml", "p1", {}, std::nullopt); }),
            ErrorKind::Unavailable);
  server_.fail_next("PATCH", "/api/v1/namespaces/ml/pods/p1", 429);
  EXPECT_EQ(kind_of([&] { state_->patch_pod_metadata("ml", "p1", {}, std::nullopt); }),
            ErrorKind::Unavailable);
}

// 401/403 (authentication, RBAC, admission) and 429 (priority and
// fairness, max-in-flight) are answered before the request reaches
// storage: the write was not stored. A 5xx may come after it was.
TEST_F(KubeClusterWrites, RefusalsBeforeStorageAreNotStored) {
  const auto maybe_stored = [](const std::function<void()>& write) {
    try {
      write();
    } catch (const ClusterError& e) {
      return e.maybe_stored();
    }
    ADD_FAILURE() << "expected ClusterError";
    return true;
  };
  const auto patch = [&] {
    cluster::PodMetadataPatch p;
    p.annotations = {{"hami.io/bind-phase", "allocating"}};
    state_->patch_pod_metadata("ml", "p1", p, std::string_view("uid-1"));
  };
  const auto binding = [&] { state_->bind("ml", "p1", "uid-1", "gpu-1"); };
  const auto lock = [&] {
    state_->patch_node_annotations("gpu-1", {{"hami.io/mutex.lock", "x"}}, std::nullopt);
  };
  const std::string pod = "/api/v1/namespaces/ml/pods/p1";
  for (const int status : {401, 403, 429}) {
    server_.fail_next("PATCH", pod, status);
    EXPECT_FALSE(maybe_stored(patch)) << status;
    server_.fail_next("POST", pod + "/binding", status);
    EXPECT_FALSE(maybe_stored(binding)) << status;
    server_.fail_next("PATCH", "/api/v1/nodes/gpu-1", status);
    EXPECT_FALSE(maybe_stored(lock)) << status;
  }
  server_.fail_next("PATCH", pod, 503);
  EXPECT_TRUE(maybe_stored(patch));
  server_.fail_next("PATCH", "/api/v1/nodes/gpu-1", 500);
  EXPECT_TRUE(maybe_stored(lock));
  EXPECT_FALSE(server_object("Pod", "ml", "p1")["spec"].HasMember("nodeName"));
}

// The uid precondition is judged by the server, not the cache: the pod was
// deleted and re-created under its name while the cache still holds the
// old one, and the new pod is not written to.
TEST_F(KubeClusterWrites, UidPreconditionReachesTheServer) {
  state_->stop();  // the cache stays as it is
  ASSERT_TRUE(server_.remove("Pod", "ml", "p1"));
  server_.apply(testing::pod_object("ml", "p1", "uid-new"));
  ASSERT_EQ(state_->pod("ml", "p1")->uid, "uid-1");
  server_.clear_requests();
  cluster::PodMetadataPatch patch;
  patch.annotations = {{"hami.io/vgpu-node", "gpu-1"}};
  std::string message;
  EXPECT_EQ(
      kind_of([&] { state_->patch_pod_metadata("ml", "p1", patch, std::string_view("uid-1")); },
              &message),
      ErrorKind::Conflict);
  EXPECT_EQ(message,
            "Precondition failed: UID in precondition: uid-1, UID in object meta: uid-new");
  const auto sent = testing::requests_to(server_, "PATCH", "/api/v1/namespaces/ml/pods/p1");
  ASSERT_EQ(sent.size(), 1U);
  EXPECT_EQ(sent[0].status, 422);
  EXPECT_FALSE(
      server_object("Pod", "ml", "p1")["metadata"]["annotations"].HasMember("hami.io/vgpu-node"));
  // The cache now holds the server's pod.
  EXPECT_EQ(state_->pod("ml", "p1")->uid, "uid-new");
}

// Annotation-value and resourceVersion preconditions, checked by the
// server: a failed one writes nothing and is a Conflict that says which.
TEST_F(KubeClusterWrites, ValuePreconditionsAreJudgedByTheServer) {
  cluster::PodMetadataPatch first;
  first.annotations = {{"hami.io/bind-phase", "allocating"}};
  state_->patch_pod_metadata("ml", "p2", first, std::string_view("uid-2"));
  state_->stop();
  // Someone else changes the value on the server.
  server_.apply(
      testing::pod_object("ml", "p2", "uid-2", "", R"({"hami.io/bind-phase":"success"})"));
  cluster::PodMetadataPatch undo;
  undo.annotations = {{"hami.io/bind-phase", std::nullopt}};
  undo.expect_annotations = {{"hami.io/bind-phase", "allocating"}};
  std::string message;
  EXPECT_EQ(
      kind_of([&] { state_->patch_pod_metadata("ml", "p2", undo, std::string_view("uid-2")); },
              &message),
      ErrorKind::Conflict);
  EXPECT_EQ(message,
            "Precondition failed: pod ml/p2 annotation hami.io/bind-phase is no longer "
            "\"allocating\"");
  EXPECT_STREQ(
      server_object("Pod", "ml", "p2")["metadata"]["annotations"]["hami.io/bind-phase"].GetString(),
      "success");

  cluster::PodMetadataPatch stale;
  stale.annotations = {{"example.com/x", "1"}};
  stale.expect_resource_version = "1";
  EXPECT_EQ(kind_of([&] { state_->patch_pod_metadata("ml", "p2", stale, std::nullopt); }),
            ErrorKind::Conflict);
  EXPECT_FALSE(
      server_object("Pod", "ml", "p2")["metadata"]["annotations"].HasMember("example.com/x"));
}

// Keys expected absent, and the pod unbound, judged by the server: another
// writer's change to an unrelated field does not stop the write; one to a
// key expected absent, or a binding, does, and says which.
TEST_F(KubeClusterWrites, AbsenceAndUnboundPreconditionsAreJudgedByTheServer) {
  state_->stop();  // the cache keeps the pod as it was read
  const auto read = state_->pod("ml", "p2");
  cluster::PodMetadataPatch patch;
  patch.annotations = {{"hami.io/vgpu-node", "gpu-1"}};
  patch.expect_unbound = true;
  cluster::expect_as_read(patch, *read);
  ASSERT_EQ(patch.expect_absent_annotations, std::vector<std::string>{"hami.io/vgpu-node"});

  // Unrelated: another annotation.
  server_.apply(testing::pod_object("ml", "p2", "uid-2", "", R"({"example.com/x":"1"})"));
  state_->patch_pod_metadata("ml", "p2", patch, std::string_view("uid-2"));
  EXPECT_STREQ(
      server_object("Pod", "ml", "p2")["metadata"]["annotations"]["hami.io/vgpu-node"].GetString(),
      "gpu-1");

  // One of the keys: set by someone else since the read.
  server_.apply(testing::pod_object("ml", "p2", "uid-2", "", R"({"hami.io/vgpu-node":"gpu-2"})"));
  std::string message;
  EXPECT_EQ(
      kind_of([&] { state_->patch_pod_metadata("ml", "p2", patch, std::string_view("uid-2")); },
              &message),
      ErrorKind::Conflict);
  EXPECT_EQ(message,
            "Precondition failed: pod ml/p2 annotation hami.io/vgpu-node is no longer absent");
  EXPECT_STREQ(
      server_object("Pod", "ml", "p2")["metadata"]["annotations"]["hami.io/vgpu-node"].GetString(),
      "gpu-2");

  // Bound since the read.
  server_.apply(testing::pod_object("ml", "p2", "uid-2", "gpu-2"));
  EXPECT_EQ(
      kind_of([&] { state_->patch_pod_metadata("ml", "p2", patch, std::string_view("uid-2")); },
              &message),
      ErrorKind::Conflict);
  EXPECT_EQ(message, "Precondition failed: pod ml/p2 is bound to node \"gpu-2\"");
}

// A Binding of the pod re-created under the name, while the cache still
// holds the old pod: the old pod is not marked bound.
TEST_F(KubeClusterWrites, BindingOfANewUidDoesNotMarkTheCachedOldPodBound) {
  state_->stop();  // the cache stays as it is
  ASSERT_TRUE(server_.remove("Pod", "ml", "p1"));
  server_.apply(testing::pod_object("ml", "p1", "uid-new"));
  state_->bind("ml", "p1", "uid-new", "gpu-1");
  EXPECT_STREQ(server_object("Pod", "ml", "p1")["spec"]["nodeName"].GetString(), "gpu-1");
  const auto cached = state_->pod("ml", "p1");
  ASSERT_TRUE(cached);
  EXPECT_EQ(cached->uid, "uid-1");
  EXPECT_EQ(cached->node_name, "");
}

// A 5xx on a Binding with the pod read back unbound: known not stored. Read
// back impossible: the outcome is unknown.
TEST_F(KubeClusterWrites, BindingFailureSaysWhetherItMayBeStored) {
  server_.fail_next("POST", "/api/v1/namespaces/ml/pods/p2/binding", 500);
  try {
    state_->bind("ml", "p2", "uid-2", "gpu-1");
    ADD_FAILURE() << "expected ClusterError";
  } catch (const ClusterError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unavailable);
    EXPECT_FALSE(e.maybe_stored());
  }
  server_.fail_next("POST", "/api/v1/namespaces/ml/pods/p2/binding", 500);
  server_.fail_next("GET", "/api/v1/namespaces/ml/pods/p2", 500);
  try {
    state_->bind("ml", "p2", "uid-2", "gpu-1");
    ADD_FAILURE() << "expected ClusterError";
  } catch (const ClusterError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unavailable);
    EXPECT_TRUE(e.maybe_stored());
  }
}

// The node lock is judged live: the cache still shows another pod's lock
// that the node-side plugin has just released on the server.
TEST_F(KubeClusterWrites, NodeLockShownOnlyByTheCacheIsTaken) {
  const std::string held = cluster::format_rfc3339(1'750'000'000) + ",ml,p2";
  server_.apply(testing::node_object("gpu-1", R"({"hami.io/mutex.lock":")" + held + "\"}"));
  ASSERT_TRUE(eventually([&] {
    const auto node = state_->node("gpu-1");
    return node && node->annotation("hami.io/mutex.lock").has_value();
  }));
  state_->stop();
  server_.apply(testing::node_object("gpu-1"));  // released on the server
  cluster::NodeLocker locker(*state_, [] { return int64_t{1'750'000'010}; });
  EXPECT_NO_THROW(locker.lock("gpu-1", "ml", "p1"));
  EXPECT_STREQ(server_object("Node", "", "gpu-1")["metadata"]["annotations"]["hami.io/mutex.lock"]
                   .GetString(),
               (cluster::format_rfc3339(1'750'000'010) + ",ml,p1").c_str());
  // A lock the server still has is contention.
  cluster::NodeLocker other(*state_, [] { return int64_t{1'750'000'020}; });
  try {
    other.lock("gpu-1", "ml", "p2");
    ADD_FAILURE() << "expected contention";
  } catch (const cluster::NodeLockError& e) {
    EXPECT_TRUE(e.contention());
    EXPECT_STREQ(e.what(), "node gpu-1 has been locked within 5m0s: node lock contention");
  }
}

TEST_F(KubeClusterWrites, NodePatchWithResourceVersion) {
  const std::string rv(state_->node("gpu-1")->resource_version());
  server_.clear_requests();
  state_->patch_node_annotations("gpu-1", {{"hami.io/node-handshake", "Requesting_x"}},
                                 std::string_view(rv));
  const auto node = state_->node("gpu-1");
  EXPECT_EQ(*node->annotation("hami.io/node-handshake"), "Requesting_x");
  EXPECT_NE(node->resource_version(), rv);
  const auto sent = testing::requests_to(server_, "PATCH", "/api/v1/nodes/gpu-1");
  ASSERT_EQ(sent.size(), 1U);
  EXPECT_EQ(sent[0].content_type, "application/merge-patch+json");
  EXPECT_EQ(sent[0].body, R"({"metadata":{"resourceVersion":")" + rv +
                              R"(","annotations":{"hami.io/node-handshake":"Requesting_x"}}})");
  EXPECT_EQ(kind_of([&] {
              state_->patch_node_annotations("absent", {{"a", "b"}}, std::nullopt);
            }),
            ErrorKind::NotFound);
  const auto write = [&] { state_->patch_node_annotations("gpu-1", {{"a", "b"}}, std::nullopt); };
  server_.fail_next("PATCH", "/api/v1/nodes/gpu-1", 422);
  EXPECT_EQ(kind_of(write), ErrorKind::Invalid);
  server_.fail_next("PATCH", "/api/v1/nodes/gpu-1", 400);
  EXPECT_EQ(kind_of(write), ErrorKind::Invalid);
  server_.fail_next("PATCH", "/api/v1/nodes/gpu-1", 500);
  EXPECT_EQ(kind_of(write), ErrorKind::Unavailable);
  EXPECT_FALSE(state_->node("gpu-1")->annotation("a"));
}

TEST_F(KubeClusterWrites, StaleNodeVersionConflictsAndRefreshesTheCache) {
  const std::string stale(state_->node("gpu-1")->resource_version());
  // Someone else changes the node; our cache may not have seen it yet.
  const std::string current = server_.apply(testing::node_object("gpu-1", R"({"other":"writer"})"));
  std::string message;
  EXPECT_EQ(kind_of(
                [&] {
                  state_->patch_node_annotations("gpu-1", {{"mine", "x"}}, std::string_view(stale));
                },
                &message),
            ErrorKind::Conflict);
  EXPECT_NE(message.find("the object has been modified"), std::string::npos) << message;
  // Before the throw the node was re-read: the cache holds the server's.
  const auto node = state_->node("gpu-1");
  EXPECT_EQ(node->resource_version(), current);
  EXPECT_EQ(*node->annotation("other"), "writer");
  EXPECT_FALSE(node->annotation("mine"));
  EXPECT_FALSE(server_object("Node", "", "gpu-1")["metadata"]["annotations"].HasMember("mine"));
}

// A node write stored before its 500: the error stands, and the cache was
// re-read, so the caller sees (and can undo) what was stored.
TEST_F(KubeClusterWrites, NodeWriteStoredBeforeA500IsInTheCache) {
  server_.clear_requests();
  server_.fail_next_after_applying("PATCH", "/api/v1/nodes/gpu-1", 500);
  EXPECT_EQ(kind_of([&] {
              state_->patch_node_annotations("gpu-1", {{"mine", "x"}}, std::nullopt);
            }),
            ErrorKind::Unavailable);
  // Read back at once, not left to the watch.
  EXPECT_EQ(testing::requests_to(server_, "GET", "/api/v1/nodes/gpu-1").size(), 1U);
  EXPECT_EQ(*state_->node("gpu-1")->annotation("mine"), "x");
}

// The node lock takes over a lock whose owner is gone; a pod the cache has
// not seen yet must not count as gone.
TEST_F(KubeClusterWrites, PodExistsAsksTheServerWhenTheCacheHasNoSuchPod) {
  KubernetesClusterState unsynced(testing::client_for(server_.url()), testing::fast_options());
  EXPECT_EQ(unsynced.pod("ml", "p1"), nullptr);
  server_.clear_requests();
  EXPECT_TRUE(unsynced.pod_exists("ml", "p1"));
  EXPECT_FALSE(unsynced.pod_exists("ml", "ghost"));
  EXPECT_EQ(testing::requests_to(server_, "GET", "/api/v1/namespaces/ml/pods/p1").size(), 1U);
  EXPECT_EQ(testing::requests_to(server_, "GET", "/api/v1/namespaces/ml/pods/ghost").size(), 1U);
  // A failing server answer is not taken for a deletion.
  server_.fail_next("GET", "/api/v1/namespaces/ml/pods/ghost", 500, 1);
  EXPECT_TRUE(unsynced.pod_exists("ml", "ghost"));
  // The synced cache answers without asking.
  server_.clear_requests();
  EXPECT_TRUE(state_->pod_exists("ml", "p2"));
  EXPECT_TRUE(testing::requests_to(server_, "GET", "/api/v1/namespaces/ml/pods/p2").empty());
}

TEST_F(KubeClusterWrites, NodeLockBetweenTwoHosts) {
  auto other = start();
  const auto now = [] { return static_cast<int64_t>(std::time(nullptr)); };
  cluster::NodeLocker a(*state_, now);
  cluster::NodeLocker b(*other, now);
  a.lock("gpu-1", "ml", "p1");
  // b may or may not have seen a's lock yet: its conditional write fails
  // on the stale version and its retry finds the lock either way.
  try {
    b.lock("gpu-1", "ml", "p2");
    FAIL() << "both hosts acquired the lock";
  } catch (const cluster::NodeLockError& e) {
    EXPECT_TRUE(e.contention()) << e.what();
  }
  const auto held = server_object("Node", "", "gpu-1");
  const std::string value = held["metadata"]["annotations"]["hami.io/mutex.lock"].GetString();
  EXPECT_TRUE(std::regex_match(value, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ,ml,p1)")))
      << value;
  // Releasing for another pod leaves the lock alone.
  ASSERT_TRUE(eventually(
      [&] { return other->node("gpu-1")->annotation(cluster::kNodeLockAnnotation).has_value(); }));
  EXPECT_FALSE(b.release("gpu-1", "ml", "p2"));
  EXPECT_EQ(server_object("Node", "", "gpu-1")["metadata"]["annotations"]["hami.io/mutex.lock"]
                .GetString(),
            value);
  EXPECT_TRUE(a.release("gpu-1", "ml", "p1"));
  EXPECT_FALSE(server_object("Node", "", "gpu-1")["metadata"]["annotations"].HasMember(
      "hami.io/mutex.lock"));
  // Now the other host can take it.
  ASSERT_TRUE(eventually(
      [&] { return !other->node("gpu-1")->annotation(cluster::kNodeLockAnnotation).has_value(); }));
  b.lock("gpu-1", "ml", "p2");
  EXPECT_TRUE(eventually([&] {
    const auto v = state_->node("gpu-1")->annotation(cluster::kNodeLockAnnotation);
    return v && v->ends_with(",ml,p2");
  }));
}

TEST_F(KubeClusterWrites, BindStoresThePodAsBound) {
  testing::RecordingWatcher watcher;
  state_->watch(watcher);
  watcher.clear();
  server_.clear_requests();
  state_->bind("ml", "p1", "uid-1", "gpu-1");
  EXPECT_EQ(state_->pod("ml", "p1")->node_name, "gpu-1");
  ASSERT_FALSE(watcher.matching("pod+ ml/p1").empty());
  EXPECT_STREQ(server_object("Pod", "ml", "p1")["spec"]["nodeName"].GetString(), "gpu-1");
  const auto sent = testing::requests_to(server_, "POST", "/api/v1/namespaces/ml/pods/p1/binding");
  ASSERT_EQ(sent.size(), 1U);
  EXPECT_EQ(sent[0].body, binding_body("ml", "p1", "uid-1", "gpu-1"));
  EXPECT_EQ(sent[0].status, 201);
  // A retried bind to the same node is a success…
  state_->bind("ml", "p1", "uid-1", "gpu-1");
  // …to another node a Conflict with the server's message.
  std::string message;
  EXPECT_EQ(kind_of([&] { state_->bind("ml", "p1", "uid-1", "gpu-2"); }, &message),
            ErrorKind::Conflict);
  EXPECT_NE(message.find("is already assigned to node \"gpu-1\""), std::string::npos) << message;
  EXPECT_EQ(state_->pod("ml", "p1")->node_name, "gpu-1");
  state_->unwatch(watcher);
}

TEST_F(KubeClusterWrites, BindPreconditionsAndMissingPod) {
  std::string message;
  EXPECT_EQ(kind_of([&] { state_->bind("ml", "p2", "not-the-uid", "gpu-1"); }, &message),
            ErrorKind::Conflict);
  EXPECT_NE(message.find("not-the-uid"), std::string::npos) << message;
  EXPECT_EQ(state_->pod("ml", "p2")->node_name, "");
  EXPECT_FALSE(server_object("Pod", "ml", "p2")["spec"].HasMember("nodeName"));
  EXPECT_EQ(kind_of([&] { state_->bind("ml", "absent", "", "gpu-1"); }), ErrorKind::NotFound);
  server_.fail_next("POST", "/api/v1/namespaces/ml/pods/p2/binding", 500);
  EXPECT_EQ(kind_of([&] { state_->bind("ml", "p2", "uid-2", "gpu-1"); }), ErrorKind::Unavailable);
  EXPECT_EQ(state_->pod("ml", "p2")->node_name, "");
  // The pod read back after that 500 was not bound; when it cannot be read
  // either, the error stands as well.
  ASSERT_EQ(testing::requests_to(server_, "GET", "/api/v1/namespaces/ml/pods/p2").size(), 1U);
  server_.fail_next("POST", "/api/v1/namespaces/ml/pods/p2/binding", 500);
  server_.fail_next("GET", "/api/v1/namespaces/ml/pods/p2", 500);
  EXPECT_EQ(kind_of([&] { state_->bind("ml", "p2", "uid-2", "gpu-1"); }), ErrorKind::Unavailable);
}

// A 500 after the server stored the Binding: the pod read back is bound to
// the node asked for, so the bind succeeded.
TEST_F(KubeClusterWrites, BindingStoredBeforeA500IsASuccess) {
  server_.fail_next_after_applying("POST", "/api/v1/namespaces/ml/pods/p2/binding", 500);
  state_->bind("ml", "p2", "uid-2", "gpu-1");
  EXPECT_EQ(state_->pod("ml", "p2")->node_name, "gpu-1");
  EXPECT_STREQ(server_object("Pod", "ml", "p2")["spec"]["nodeName"].GetString(), "gpu-1");
}

// The body the server recorded, rebuilt from its own name and time: equal
// byte for byte to what write_bodies produces for that stamp.
void expect_event(const hami::testing::RecordedRequest& sent, const cluster::Event& event,
                  bool core, const std::string& resource_version) {
  const auto doc = testing::parse(sent.body);
  const std::string name = doc["metadata"]["name"].GetString();
  ASSERT_TRUE(std::regex_match(name, std::regex(event.name + R"(\.[0-9a-f]{16})"))) << name;
  EventStamp stamp;
  stamp.name = name;
  stamp.unix_nanos =
      static_cast<int64_t>(std::stoull(name.substr(event.name.size() + 1), nullptr, 16));
  stamp.component = "hami-scheduler";
  stamp.instance = "test-host";
  stamp.resource_version = resource_version;
  EXPECT_EQ(sent.body,
            core ? core_v1_event_body(event, stamp) : events_v1_event_body(event, stamp));
  EXPECT_EQ(sent.status, 201);
}

cluster::Event scheduling_event() {
  cluster::Event e;
  e.kind = "Pod";
  e.namespace_ = "ml";
  e.name = "p1";
  e.uid = "uid-1";
  e.type = "Warning";
  e.reason = "FilteringFailed";
  e.message = "no node fits";
  return e;
}

TEST_F(KubeClusterWrites, EventsV1Recorded) {
  server_.clear_requests();
  state_->record_event(scheduling_event());
  ASSERT_TRUE(state_->flush_events(5s));
  const auto sent =
      testing::requests_to(server_, "POST", "/apis/events.k8s.io/v1/namespaces/ml/events");
  ASSERT_EQ(sent.size(), 1U);
  EXPECT_EQ(sent[0].content_type, "application/json");
  expect_event(sent[0], scheduling_event(), false, "");
  EXPECT_EQ(server_.objects("Event").size(), 1U);
}

// The server answers the event's POST only after 4 s: a record_event that
// waited for it would return after the answer. It returns with no answer
// recorded yet, well inside the latency (a margin a loaded machine keeps).
TEST_F(KubeClusterWrites, RecordEventDoesNotWaitForASlowServer) {
  server_.clear_requests();
  server_.set_latency(4s);
  const auto before = std::chrono::steady_clock::now();
  state_->record_event(scheduling_event());
  EXPECT_LT(std::chrono::steady_clock::now() - before, 2s);
  EXPECT_TRUE(
      testing::requests_to(server_, "POST", "/apis/events.k8s.io/v1/namespaces/ml/events").empty());
  EXPECT_TRUE(state_->flush_events(10s));
  server_.set_latency(0ms);
  EXPECT_EQ(server_.objects("Event").size(), 1U);
}

TEST_F(KubeClusterWrites, CoreV1EventsAndFailuresSwallowed) {
  auto options = testing::fast_options();
  options.core_v1_events = true;
  auto core = start(options);
  server_.clear_requests();
  core->record_event(scheduling_event());
  ASSERT_TRUE(core->flush_events(5s));
  const auto sent = testing::requests_to(server_, "POST", "/api/v1/namespaces/ml/events");
  ASSERT_EQ(sent.size(), 1U);
  expect_event(sent[0], scheduling_event(), true, core->pod("ml", "p1")->resource_version);

  server_.fail_next("POST", "/api/v1/namespaces/ml/events", 500);
  EXPECT_NO_THROW(core->record_event(scheduling_event()));
  EXPECT_TRUE(core->flush_events(5s));
  server_.set_refusing(true);
  EXPECT_NO_THROW(state_->record_event(scheduling_event()));
  EXPECT_TRUE(state_->flush_events(5s));
  server_.set_refusing(false);
  // One delivered, one refused by the 500, one by the refusing server.
  EXPECT_EQ(server_.objects("Event").size(), 1U);
}

}  // namespace
}  // namespace hami::kube
