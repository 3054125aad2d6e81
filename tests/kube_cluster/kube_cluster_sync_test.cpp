// KubernetesClusterState against the fake API server: initial sync,
// following changes, relist after 410, reconnects, failures.
#include <gtest/gtest.h>

#include <mutex>

#include "cluster_env.hpp"
#include "recording_watcher.hpp"

namespace hami::kube {
namespace {

using namespace std::chrono_literals;
using hami::testing::FakeApiServer;
using testing::eventually;
using testing::RecordingWatcher;

class KubeClusterSync : public ::testing::Test {
 protected:
  void seed() {
    for (const char* n : {"gpu-1", "gpu-2", "gpu-3"})
      server_.apply(testing::node_object(n));
    for (int i = 0; i < 5; ++i) {
      server_.apply(testing::pod_object("ml", "p" + std::to_string(i), "uid-" + std::to_string(i)));
    }
    server_.apply(testing::quota_object("ml", "q1", "1000"));
    server_.apply(testing::quota_object("ml", "q2", "2000"));
    server_.apply(testing::quota_object("web", "q3", "3000"));
    for (const char* ns : {"ml", "web", "default"})
      server_.apply(testing::namespace_object(ns));
  }

  std::unique_ptr<KubernetesClusterState> start() {
    auto state = std::make_unique<KubernetesClusterState>(testing::client_for(server_.url()),
                                                          testing::fast_options());
    state->start();
    return state;
  }

  FakeApiServer server_;
};

TEST_F(KubeClusterSync, InitialSyncFromTheWatchCache) {
  seed();
  auto state = start();
  ASSERT_TRUE(state->wait_synced(5s)) << state->sync_status();
  EXPECT_EQ(state->sync_status(), "");
  EXPECT_EQ(state->nodes().size(), 3U);
  EXPECT_EQ(state->pods().size(), 5U);
  EXPECT_EQ(state->quotas().size(), 3U);
  EXPECT_EQ(state->namespaces().size(), 3U);
  const auto pod = state->pod("ml", "p3");
  ASSERT_TRUE(pod);
  EXPECT_EQ(pod->uid, "uid-3");
  EXPECT_EQ(pod->phase, "Pending");
  EXPECT_EQ(pod->model->view().containers[0].env_len, 0U);  // trimmed
  ASSERT_TRUE(state->node("gpu-2"));
  EXPECT_EQ(state->node("gpu-2")->view().allocatable_len, 1U);

  // The first list asks resourceVersion=0: the API server's watch cache
  // answers with all five pods at once, limit ignored (the pages a server
  // without watch cache sends are followed: reflector_test.cpp).
  const auto lists = testing::requests_to(server_, "GET", "/api/v1/pods");
  std::vector<std::string> queries;
  for (const auto& r : lists) {
    if (!r.watch)
      queries.push_back(r.query);
  }
  EXPECT_EQ(queries, (std::vector<std::string>{"limit=2&resourceVersion=0"}));

  // Then one watch per resource, from the list's resourceVersion (the
  // store's revision: nothing was written since the seed).
  ASSERT_TRUE(server_.wait_open_watches(4, 5s));
  const std::string expected = "watch=1&resourceVersion=" + std::to_string(server_.revision()) +
                               "&allowWatchBookmarks=true&timeoutSeconds=";
  int pod_watches = 0;
  for (const auto& r : testing::requests_to(server_, "GET", "/api/v1/pods")) {
    if (!r.watch)
      continue;
    ++pod_watches;
    EXPECT_TRUE(r.query.starts_with(expected)) << r.query;
  }
  EXPECT_EQ(pod_watches, 1);
  state->stop();
}

TEST_F(KubeClusterSync, WatchTimeoutIsRandomisedWithinRange) {
  seed();
  auto state = start();
  ASSERT_TRUE(state->wait_synced(5s));
  ASSERT_TRUE(eventually([&] {
    for (const auto& r : server_.requests()) {
      if (r.watch && r.path == "/api/v1/nodes")
        return true;
    }
    return false;
  }));
  for (const auto& r : server_.requests()) {
    if (!r.watch)
      continue;
    const auto at = r.query.find("timeoutSeconds=");
    ASSERT_NE(at, std::string::npos);
    const int seconds = std::stoi(r.query.substr(at + 15));
    EXPECT_GE(seconds, 30);
    EXPECT_LT(seconds, 60);
  }
}

TEST_F(KubeClusterSync, FollowsChangesInOrder) {
  seed();
  auto state = start();
  ASSERT_TRUE(state->wait_synced(5s));
  RecordingWatcher watcher;
  state->watch(watcher);
  // The replay: every node and pod, then one quotas_changed.
  EXPECT_EQ(watcher.matching("node+").size(), 3U);
  EXPECT_EQ(watcher.matching("pod+").size(), 5U);
  EXPECT_EQ(watcher.log().back(), "quotas");
  watcher.clear();
  ASSERT_TRUE(server_.wait_open_watches(4, 5s));

  const std::string rv1 = server_.apply(testing::pod_object("ml", "new", "uid-new"));
  const std::string rv2 =
      server_.apply(testing::pod_object("ml", "new", "uid-new", "gpu-1", R"({"a":"b"})"));
  ASSERT_TRUE(server_.remove("Pod", "ml", "new"));
  ASSERT_TRUE(eventually([&] { return watcher.matching("pod").size() >= 3; }));
  const auto pods = watcher.matching("pod");
  ASSERT_EQ(pods.size(), 3U);
  EXPECT_EQ(pods[0], "pod+ ml/new@" + rv1);
  EXPECT_EQ(pods[1], "pod+ ml/new@" + rv2);
  EXPECT_EQ(pods[2], "pod- ml/new@" + rv2);
  EXPECT_FALSE(state->pod("ml", "new"));

  const std::string nrv = server_.apply(testing::node_object("gpu-9"));
  ASSERT_TRUE(server_.remove("Node", "", "gpu-1"));
  server_.apply(testing::quota_object("ml", "q1", "5000"));
  ASSERT_TRUE(eventually(
      [&] { return watcher.matching("node").size() >= 2 && !watcher.matching("quotas").empty(); }));
  EXPECT_EQ(watcher.matching("node"),
            (std::vector<std::string>{"node+ gpu-9@" + nrv, "node- gpu-1"}));
  ASSERT_TRUE(eventually([&] {
    for (const auto& q : state->quotas()) {
      if (q.name == "q1" && q.hard.at(0).second == "5000")
        return true;
    }
    return false;
  }));
  state->unwatch(watcher);
}

TEST_F(KubeClusterSync, RelistAfterExpiryDeliversMissedDeletion) {
  seed();
  auto state = start();
  ASSERT_TRUE(state->wait_synced(5s));
  ASSERT_TRUE(server_.wait_open_watches(4, 5s));
  RecordingWatcher watcher;
  state->watch(watcher);
  watcher.clear();

  // While the scheduler is cut off, a pod goes away and another changes,
  // and the server forgets the history: the re-watch gets 410 and only a
  // relist can tell what happened.
  server_.set_refusing(true);
  server_.drop_watches();
  ASSERT_TRUE(server_.remove("Pod", "ml", "p1"));
  const std::string rv =
      server_.apply(testing::pod_object("ml", "p2", "uid-2", "", R"({"changed":"yes"})"));
  server_.compact();
  // One more write after the compaction: a list taken at exactly the
  // compaction revision cannot be continued by the fake server.
  server_.apply(testing::namespace_object("after-compaction"));
  server_.clear_requests();
  server_.set_refusing(false);

  ASSERT_TRUE(eventually([&] { return watcher.matching("pod").size() >= 2; }))
      << ::testing::PrintToString(watcher.log());
  const auto pods = watcher.matching("pod");
  EXPECT_EQ(pods.size(), 2U);
  EXPECT_NE(std::find(pods.begin(), pods.end(), "pod+ ml/p2@" + rv), pods.end());
  EXPECT_TRUE(std::any_of(pods.begin(), pods.end(),
                          [](const std::string& e) { return e.starts_with("pod- ml/p1@"); }));
  EXPECT_FALSE(state->pod("ml", "p1"));
  EXPECT_EQ(*state->pod("ml", "p2")->annotation("changed"), "yes");
  // It was a relist (a plain GET of the collection), not a replay.
  bool relisted = false;
  for (const auto& r : testing::requests_to(server_, "GET", "/api/v1/pods"))
    relisted = relisted || (!r.watch && r.status == 200);
  EXPECT_TRUE(relisted);
  EXPECT_TRUE(state->synced());
  state->unwatch(watcher);
}

// A MODIFIED event carrying another uid for a watched name (the server
// replaced the object): the old uid is deleted first.
TEST_F(KubeClusterSync, WatchedNewUidDeletesTheOldPodFirst) {
  seed();
  server_.apply(testing::pod_object("ml", "infer-0", "uid-old", "gpu-1"));
  auto state = start();
  ASSERT_TRUE(state->wait_synced(5s));
  ASSERT_TRUE(server_.wait_open_watches(4, 5s));
  RecordingWatcher watcher;
  state->watch(watcher);
  watcher.clear();
  const std::string rv = server_.apply(testing::pod_object("ml", "infer-0", "uid-new"));
  ASSERT_TRUE(eventually([&] { return watcher.pod_uids().size() >= 2; }));
  EXPECT_EQ(watcher.pod_uids(), (std::vector<std::string>{"pod- ml/infer-0 uid-old gpu-1",
                                                          "pod+ ml/infer-0 uid-new "}));
  const auto pod = state->pod("ml", "infer-0");
  ASSERT_TRUE(pod);
  EXPECT_EQ(pod->uid, "uid-new");
  EXPECT_EQ(pod->resource_version, rv);
  EXPECT_EQ(pod->node_name, "");
  state->unwatch(watcher);
}

// Cut off while the pod is deleted and re-created under its name, and the
// server forgets the history: the relist after 410 lists only the new uid,
// and the old one is deleted before the new one arrives.
TEST_F(KubeClusterSync, RelistAfterExpiryDeletesTheReCreatedPodsOldUid) {
  seed();
  server_.apply(testing::pod_object("ml", "infer-0", "uid-old", "gpu-1"));
  auto state = start();
  ASSERT_TRUE(state->wait_synced(5s));
  ASSERT_TRUE(server_.wait_open_watches(4, 5s));
  RecordingWatcher watcher;
  state->watch(watcher);
  watcher.clear();

  server_.set_refusing(true);
  server_.drop_watches();
  ASSERT_TRUE(server_.remove("Pod", "ml", "infer-0"));
  const std::string rv = server_.apply(testing::pod_object("ml", "infer-0", "uid-new"));
  server_.compact();
  server_.apply(testing::namespace_object("after-compaction"));
  server_.clear_requests();
  server_.set_refusing(false);

  ASSERT_TRUE(eventually([&] { return watcher.pod_uids().size() >= 2; }))
      << ::testing::PrintToString(watcher.log());
  EXPECT_EQ(watcher.pod_uids(), (std::vector<std::string>{"pod- ml/infer-0 uid-old gpu-1",
                                                          "pod+ ml/infer-0 uid-new "}));
  ASSERT_TRUE(state->pod("ml", "infer-0"));
  EXPECT_EQ(state->pod("ml", "infer-0")->uid, "uid-new");
  EXPECT_EQ(state->pod("ml", "infer-0")->resource_version, rv);
  EXPECT_EQ(state->pod("ml", "infer-0")->node_name, "");
  bool relisted = false;
  for (const auto& r : testing::requests_to(server_, "GET", "/api/v1/pods"))
    relisted = relisted || (!r.watch && r.status == 200);
  EXPECT_TRUE(relisted);
  state->unwatch(watcher);
}

// The same with the history kept: the re-watch replays the deletion and
// the creation, and the watcher sees them as they were.
TEST_F(KubeClusterSync, ReWatchAfterDropDeliversTheReCreation) {
  seed();
  server_.apply(testing::pod_object("ml", "infer-0", "uid-old", "gpu-1"));
  auto state = start();
  ASSERT_TRUE(state->wait_synced(5s));
  ASSERT_TRUE(server_.wait_open_watches(4, 5s));
  RecordingWatcher watcher;
  state->watch(watcher);
  watcher.clear();

  server_.set_refusing(true);
  server_.drop_watches();
  ASSERT_TRUE(server_.remove("Pod", "ml", "infer-0"));
  server_.apply(testing::pod_object("ml", "infer-0", "uid-new"));
  server_.clear_requests();
  server_.set_refusing(false);

  ASSERT_TRUE(eventually([&] { return watcher.pod_uids().size() >= 2; }))
      << ::testing::PrintToString(watcher.log());
  EXPECT_EQ(watcher.pod_uids(), (std::vector<std::string>{"pod- ml/infer-0 uid-old gpu-1",
                                                          "pod+ ml/infer-0 uid-new "}));
  EXPECT_EQ(state->pod("ml", "infer-0")->uid, "uid-new");
  for (const auto& r : testing::requests_to(server_, "GET", "/api/v1/pods"))
    EXPECT_TRUE(r.watch) << "unexpected relist: " << r.query;
  state->unwatch(watcher);
}

TEST_F(KubeClusterSync, ReconnectsAfterDroppedWatchWithoutRelist) {
  seed();
  auto state = start();
  ASSERT_TRUE(state->wait_synced(5s));
  ASSERT_TRUE(server_.wait_open_watches(4, 5s));
  server_.clear_requests();
  server_.drop_watches();
  server_.apply(testing::pod_object("ml", "after-drop", "uid-ad"));
  ASSERT_TRUE(eventually([&] { return state->pod("ml", "after-drop") != nullptr; }));
  ASSERT_TRUE(server_.wait_open_watches(4, 5s));
  for (const auto& r : server_.requests()) {
    if (r.method == "GET" && r.path.starts_with("/api/v1/")) {
      EXPECT_TRUE(r.watch) << "unexpected relist: " << r.path << "?" << r.query;
    }
  }
}

TEST_F(KubeClusterSync, ListFailuresAreRetriedAndReported) {
  seed();
  server_.fail_next("GET", "/api/v1/nodes", 500, 2);
  std::mutex mu;
  std::vector<std::string> details;
  auto state = std::make_unique<KubernetesClusterState>(testing::client_for(server_.url()),
                                                        testing::fast_options());
  state->on_sync_change([&](bool synced, const std::string& detail) {
    std::lock_guard guard(mu);
    details.push_back((synced ? "synced:" : "unsynced:") + detail);
  });
  EXPECT_FALSE(state->synced());
  EXPECT_EQ(state->sync_status(), "not started");
  state->start();
  ASSERT_TRUE(state->wait_synced(5s)) << state->sync_status();
  EXPECT_EQ(state->sync_status(), "");
  // The listener runs on the watch thread right after the state flips.
  EXPECT_TRUE(eventually([&] {
    std::lock_guard guard(mu);
    return !details.empty() && details.back() == "synced:";
  }));
  std::lock_guard guard(mu);
  bool first = false;
  bool second = false;
  for (const auto& d : details) {
    first =
        first || d.find("nodes: list failed (attempt 1): 500 InternalError") != std::string::npos;
    second = second || d.find("nodes: list failed (attempt 2): 500") != std::string::npos;
  }
  EXPECT_TRUE(first) << ::testing::PrintToString(details);
  EXPECT_TRUE(second) << ::testing::PrintToString(details);
}

TEST(KubeClusterUnreachable, NotSyncedSaysWhyAndStopsPromptly) {
  std::string url;
  {
    FakeApiServer gone;
    url = gone.url();
  }  // nobody listens on that port any more
  KubernetesClusterState state(testing::client_for(url), testing::fast_options());
  state.start();
  ASSERT_TRUE(eventually([&] {
    const std::string s = state.sync_status();
    return s.find("pods: list failed (attempt 2)") != std::string::npos &&
           s.find("nodes: list failed") != std::string::npos;
  })) << state.sync_status();
  EXPECT_FALSE(state.synced());
  EXPECT_FALSE(state.wait_synced(50ms));
  const auto before = std::chrono::steady_clock::now();
  state.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - before, 1500ms);
  // Writes say the server is unavailable.
  try {
    state.patch_node_annotations("n", {{"a", "b"}}, std::nullopt);
    FAIL() << "expected ClusterError";
  } catch (const cluster::ClusterError& e) {
    EXPECT_EQ(e.kind(), cluster::ErrorKind::Unavailable);
  }
}

}  // namespace
}  // namespace hami::kube

namespace hami::kube {
namespace {

// Many pods with fat specs sync in pages of 500 and the cache keeps only
// the trimmed parts. (2,000 pods: the fake server's own bookkeeping, not
// the cache, dominates the time of larger runs.)
// A server without watch cache, so the list comes in pages of 500.
TEST(KubeClusterScale, ThousandsOfPodsSyncInPages) {
  hami::testing::FakeApiServerOptions paged;
  paged.watch_cache = false;
  FakeApiServer server(paged);
  std::string env = "[";
  for (int i = 0; i < 20; ++i)
    env += std::string(i ? "," : "") + R"({"name":"VAR_)" + std::to_string(i) +
           R"(","value":"some fairly long configuration value that pods tend to carry"})";
  env += "]";
  for (int i = 0; i < 2000; ++i) {
    const std::string name = "pod-" + std::to_string(i);
    server.apply(
        R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
        R"(","namespace":"ml","uid":"u-)" + std::to_string(i) +
        R"(","annotations":{"hami.io/vgpu-node":"gpu-1"}},"spec":{"containers":[{"name":"c","image":"cuda","env":)" +
        env + R"(,"resources":{"limits":{"nvidia.com/gpu":"1"}}}]},"status":{"phase":"Running"}})");
  }
  auto options = testing::fast_options();
  options.list_page_size = 500;
  KubernetesClusterState state(testing::client_for(server.url()), options);
  state.start();
  ASSERT_TRUE(state.wait_synced(30s)) << state.sync_status();
  int lists = 0;
  for (const auto& r : testing::requests_to(server, "GET", "/api/v1/pods"))
    lists += r.watch ? 0 : 1;
  EXPECT_EQ(lists, 4);
  const auto pod = state.pod("ml", "pod-1234");
  ASSERT_TRUE(pod);
  EXPECT_EQ(pod->model->view().containers[0].env_len, 0U);
  EXPECT_EQ(*pod->annotation("hami.io/vgpu-node"), "gpu-1");
}

}  // namespace
}  // namespace hami::kube
