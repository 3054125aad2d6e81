// KubeClusterStore without a server: staleness rule, relist differences,
// watcher order.
#include "kube/kube_cluster_store.hpp"

#include <gtest/gtest.h>

#include "recording_watcher.hpp"
#include "test_files.hpp"

namespace hami::kube {
namespace {

using testing::parse;

std::string pod_json(const std::string& rv, const std::string& node = "",
                     const std::string& annotation = "", const std::string& uid = "u1") {
  std::string out = R"({"metadata":{"name":"p","namespace":"ns","uid":")" + uid +
                    R"(","resourceVersion":")" + rv + "\"";
  if (!annotation.empty())
    out += R"(,"annotations":{"a":")" + annotation + "\"}";
  out += R"(},"spec":{"containers":[{"name":"c","env":[{"name":"E","value":"v"}]}])";
  if (!node.empty())
    out += R"(,"nodeName":")" + node + "\"";
  out += "}}";
  return out;
}

TEST(KubeClusterStore, OlderOrEqualVersionsAreIgnored) {
  KubeClusterStore store(nullptr);
  testing::RecordingWatcher watcher;
  store.watch(watcher);
  store.upsert_pod(parse(pod_json("10", "", "write")), false);
  store.upsert_pod(parse(pod_json("9", "", "stale-watch")), false);  // lags the write reply
  store.upsert_pod(parse(pod_json("10", "", "same")), false);
  ASSERT_TRUE(store.pod("ns", "p"));
  EXPECT_EQ(*store.pod("ns", "p")->annotation("a"), "write");
  store.upsert_pod(parse(pod_json("11", "", "newer")), false);
  EXPECT_EQ(*store.pod("ns", "p")->annotation("a"), "newer");
  // A deletion older than what is stored (the pod was re-created) is ignored.
  store.delete_pod(parse(pod_json("10")));
  EXPECT_TRUE(store.pod("ns", "p"));
  store.delete_pod(parse(pod_json("12")));
  EXPECT_FALSE(store.pod("ns", "p"));
  EXPECT_EQ(watcher.log(),
            (std::vector<std::string>{"quotas", "pod+ ns/p@10", "pod+ ns/p@11", "pod- ns/p@11"}));
}

TEST(KubeClusterStore, MarkBoundKeepsVersionAndDropsEnv) {
  KubeClusterStore store(nullptr);
  store.upsert_pod(parse(pod_json("5")), false);
  store.mark_bound("ns", "p", "gpu-1");
  const auto pod = store.pod("ns", "p");
  ASSERT_TRUE(pod);
  EXPECT_EQ(pod->node_name, "gpu-1");
  EXPECT_EQ(pod->resource_version, "5");
  EXPECT_EQ(pod->model->view().containers[0].env_len, 0U);
  // A watch event from before the binding (newer than what the cache had,
  // but without spec.nodeName) does not unbind the pod.
  store.upsert_pod(parse(pod_json("6", "", "pre-bind")), false);
  EXPECT_EQ(store.pod("ns", "p")->node_name, "gpu-1");
  EXPECT_EQ(*store.pod("ns", "p")->annotation("a"), "pre-bind");
  // The binding's own watch event (newer) replaces the local view.
  store.upsert_pod(parse(pod_json("7", "gpu-1", "x")), false);
  EXPECT_EQ(store.pod("ns", "p")->resource_version, "7");
  EXPECT_EQ(*store.pod("ns", "p")->annotation("a"), "x");
  store.mark_bound("ns", "unknown", "gpu-1");  // no-op
  EXPECT_FALSE(store.pod("ns", "unknown"));
}

// Only pending pods keep their text (mark_bound needs it); a bound pod is
// never bound again.
TEST(KubeClusterStore, BoundPodsKeepNoText) {
  KubeClusterStore store(nullptr);
  store.upsert_pod(parse(pod_json("5")), false);
  EXPECT_GT(store.pod_text_bytes(), 50U);
  store.mark_bound("ns", "p", "gpu-1");
  EXPECT_EQ(store.pod_text_bytes(), 0U);
  store.upsert_pod(parse(pod_json("6", "", "pre-bind")), false);
  EXPECT_EQ(store.pod_text_bytes(), 0U);
  EXPECT_EQ(store.pod("ns", "p")->node_name, "gpu-1");
  store.mark_bound("ns", "p", "gpu-2");
  EXPECT_EQ(store.pod("ns", "p")->node_name, "gpu-1");
  EXPECT_EQ(*store.pod("ns", "p")->annotation("a"), "pre-bind");
  store.upsert_pod(parse(pod_json("7", "gpu-1", "bound")), false);
  EXPECT_EQ(store.pod_text_bytes(), 0U);
  EXPECT_EQ(store.pod("ns", "p")->resource_version, "7");
}

TEST(KubeClusterStore, RelistDeliversDifferences) {
  KubeClusterStore store(nullptr);
  store.upsert_node(parse(R"({"metadata":{"name":"a","resourceVersion":"1"}})"));
  store.upsert_node(parse(R"({"metadata":{"name":"b","resourceVersion":"2"}})"));
  store.upsert_node(parse(R"({"metadata":{"name":"c","resourceVersion":"9"}})"));
  testing::RecordingWatcher watcher;
  store.watch(watcher);
  watcher.clear();
  Relist relist;
  auto& a = relist.objects.GetAllocator();
  relist.objects.PushBack(
      rapidjson::Value(parse(R"({"metadata":{"name":"a","resourceVersion":"1"}})"), a), a);
  relist.objects.PushBack(
      rapidjson::Value(parse(R"({"metadata":{"name":"d","resourceVersion":"7"}})"), a), a);
  relist.deleted = {"b", "c"};
  relist.resource_version = "8";
  store.replace_nodes(relist);
  // a unchanged (no event), d added, b gone; c is newer than the list
  // (a write reply stored it after the list was taken) and stays.
  EXPECT_EQ(watcher.log(), (std::vector<std::string>{"node+ d@7", "node- b"}));
  EXPECT_TRUE(store.node("c"));
  EXPECT_FALSE(store.node("b"));
}

TEST(KubeClusterStore, QuotasAndNamespaces) {
  KubeClusterStore store(nullptr);
  testing::RecordingWatcher watcher;
  store.watch(watcher);
  watcher.clear();
  store.upsert_quota(parse(
      R"({"metadata":{"name":"q","namespace":"ml","resourceVersion":"3"},"spec":{"hard":{"limits.nvidia.com/gpumem":"100"}}})"));
  store.upsert_quota(parse(R"({"metadata":{"name":"q","namespace":"ml","resourceVersion":"3"}})"));
  ASSERT_EQ(store.quotas().size(), 1U);
  EXPECT_EQ(store.quotas()[0].hard.at(0).second, "100");
  store.delete_quota(parse(R"({"metadata":{"name":"q","namespace":"ml","resourceVersion":"4"}})"));
  EXPECT_TRUE(store.quotas().empty());
  EXPECT_EQ(watcher.log(), (std::vector<std::string>{"quotas", "quotas"}));
  store.upsert_namespace(
      parse(R"({"metadata":{"name":"ml","resourceVersion":"1","labels":{"x":"y"}}})"));
  ASSERT_EQ(store.namespaces().size(), 1U);
  EXPECT_EQ(store.namespaces()[0].labels.at(0).first, "x");
  store.delete_namespace(parse(R"({"metadata":{"name":"ml","resourceVersion":"2"}})"));
  EXPECT_TRUE(store.namespaces().empty());
}

// A watch ADDED or MODIFIED event (or a write reply) of a new uid for a
// stored name: the pod was re-created and its DELETED never seen. The old
// uid is deleted first; the new pod reads as itself, pending.
TEST(KubeClusterStore, NewUidUnderAStoredNameDeletesTheOldPodFirst) {
  KubeClusterStore store(nullptr);
  testing::RecordingWatcher watcher;
  store.watch(watcher);
  store.upsert_pod(parse(pod_json("10", "gpu-1", "old", "u1")), false);
  store.upsert_pod(parse(pod_json("12", "", "new", "u2")), false);
  EXPECT_EQ(watcher.pod_uids(), (std::vector<std::string>{"pod+ ns/p u1 gpu-1",
                                                          "pod- ns/p u1 gpu-1", "pod+ ns/p u2 "}));
  const auto pod = store.pod("ns", "p");
  ASSERT_TRUE(pod);
  EXPECT_EQ(pod->uid, "u2");
  EXPECT_EQ(pod->node_name, "");
  EXPECT_EQ(*pod->annotation("a"), "new");
  // An update of the new pod is a plain upsert.
  watcher.clear();
  store.upsert_pod(parse(pod_json("13", "", "newer", "u2")), false);
  EXPECT_EQ(watcher.pod_uids(), (std::vector<std::string>{"pod+ ns/p u2 "}));
  // A late event of the old uid (older than the new pod) changes nothing.
  store.upsert_pod(parse(pod_json("11", "gpu-1", "late", "u1")), false);
  EXPECT_EQ(store.pod("ns", "p")->uid, "u2");
  EXPECT_EQ(watcher.pod_uids().size(), 1U);
}

// The binding rule is for one pod: the old pod bound by mark_bound does
// not make its successor read as bound.
TEST(KubeClusterStore, ReCreatedPodDoesNotInheritTheOldBinding) {
  KubeClusterStore store(nullptr);
  testing::RecordingWatcher watcher;
  store.watch(watcher);
  watcher.clear();
  store.upsert_pod(parse(pod_json("5", "", "", "u1")), false);
  store.mark_bound("ns", "p", "gpu-1");
  ASSERT_EQ(store.pod("ns", "p")->node_name, "gpu-1");
  store.upsert_pod(parse(pod_json("8", "", "", "u2")), false);
  const auto pod = store.pod("ns", "p");
  ASSERT_TRUE(pod);
  EXPECT_EQ(pod->uid, "u2");
  EXPECT_EQ(pod->node_name, "");
  EXPECT_GT(store.pod_text_bytes(), 0U);  // pending again: its text is kept for mark_bound
  EXPECT_EQ(watcher.pod_uids(), (std::vector<std::string>{"pod+ ns/p u1 ", "pod+ ns/p u1 gpu-1",
                                                          "pod- ns/p u1 gpu-1", "pod+ ns/p u2 "}));
}

// A Binding of the old uid that lands after the name was re-created does
// not bind the new pod when its uid is given.
TEST(KubeClusterStore, MarkBoundOfAnotherUidLeavesTheNewPodPending) {
  KubeClusterStore store(nullptr);
  store.upsert_pod(parse(pod_json("5", "", "", "u1")), false);
  store.upsert_pod(parse(pod_json("8", "", "", "u2")), false);
  store.mark_bound("ns", "p", "gpu-1", "u1");
  EXPECT_EQ(store.pod("ns", "p")->node_name, "");
  store.mark_bound("ns", "p", "gpu-1", "u2");
  EXPECT_EQ(store.pod("ns", "p")->node_name, "gpu-1");
  EXPECT_EQ(store.pod("ns", "p")->uid, "u2");
}

// A DELETED event names its uid: the old pod's deletion never removes the
// new pod, whatever its revision says; without a uid the revision decides.
TEST(KubeClusterStore, DeletionOfTheOldUidKeepsTheNewPod) {
  KubeClusterStore store(nullptr);
  testing::RecordingWatcher watcher;
  store.watch(watcher);
  store.upsert_pod(parse(pod_json("10", "gpu-1", "", "u1")), false);
  store.upsert_pod(parse(pod_json("12", "", "", "u2")), false);
  watcher.clear();
  store.delete_pod(parse(pod_json("11", "gpu-1", "", "u1")));  // stale: older than u2
  store.delete_pod(parse(pod_json("14", "gpu-1", "", "u1")));  // not u2's, though newer
  ASSERT_TRUE(store.pod("ns", "p"));
  EXPECT_EQ(store.pod("ns", "p")->uid, "u2");
  EXPECT_TRUE(watcher.pod_uids().empty());
  store.delete_pod(parse(pod_json("15", "", "", "u2")));
  EXPECT_FALSE(store.pod("ns", "p"));
  EXPECT_EQ(watcher.pod_uids(), (std::vector<std::string>{"pod- ns/p u2 "}));
  store.upsert_pod(parse(pod_json("16", "", "", "u3")), false);
  store.delete_pod(parse(R"({"metadata":{"name":"p","namespace":"ns","resourceVersion":"17"}})"));
  EXPECT_FALSE(store.pod("ns", "p"));
}

// A relist after a dropped watch or 410: the name now lists a new uid.
// The old pod is deleted first. A relist deletion of a name removes the
// stored pod unless that is newer than the list (a write reply stored a
// pod created after the list was taken).
TEST(KubeClusterStore, RelistOfANewUidDeletesTheOldPodFirst) {
  KubeClusterStore store(nullptr);
  testing::RecordingWatcher watcher;
  store.watch(watcher);
  store.upsert_pod(parse(pod_json("10", "gpu-1", "", "u1")), false);
  watcher.clear();
  {
    Relist relist;
    auto& a = relist.objects.GetAllocator();
    relist.objects.PushBack(rapidjson::Value(parse(pod_json("12", "", "", "u2")), a), a);
    relist.resource_version = "20";
    store.replace_pods(relist);
  }
  EXPECT_EQ(watcher.pod_uids(), (std::vector<std::string>{"pod- ns/p u1 gpu-1", "pod+ ns/p u2 "}));
  EXPECT_EQ(store.pod("ns", "p")->node_name, "");
  // Re-created again after the next list was taken; a write reply stored it.
  store.upsert_pod(parse(pod_json("25", "", "", "u3")), false);
  watcher.clear();
  {
    Relist relist;
    relist.deleted = {"ns/p"};
    relist.resource_version = "22";
    store.replace_pods(relist);
  }
  ASSERT_TRUE(store.pod("ns", "p"));
  EXPECT_EQ(store.pod("ns", "p")->uid, "u3");
  EXPECT_TRUE(watcher.pod_uids().empty());
  {
    Relist relist;
    relist.deleted = {"ns/p"};
    relist.resource_version = "30";
    store.replace_pods(relist);
  }
  EXPECT_FALSE(store.pod("ns", "p"));
  EXPECT_EQ(watcher.pod_uids(), (std::vector<std::string>{"pod- ns/p u3 "}));
}

TEST(KubeClusterStore, MalformedObjectsAreLeftOut) {
  KubeClusterStore store(nullptr);
  store.upsert_pod(parse(R"({"metadata":{"name":"p","namespace":"ns","labels":{"a":1}}})"), false);
  EXPECT_FALSE(store.pod("ns", "p"));
  store.upsert_node(parse(R"({"metadata":{"name":"n","annotations":[]}})"));
  EXPECT_FALSE(store.node("n"));
}

}  // namespace
}  // namespace hami::kube
