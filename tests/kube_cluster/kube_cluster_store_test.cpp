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
                     const std::string& annotation = "") {
  std::string out =
      R"({"metadata":{"name":"p","namespace":"ns","uid":"u1","resourceVersion":")" + rv + "\"";
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

TEST(KubeClusterStore, MalformedObjectsAreLeftOut) {
  KubeClusterStore store(nullptr);
  store.upsert_pod(parse(R"({"metadata":{"name":"p","namespace":"ns","labels":{"a":1}}})"), false);
  EXPECT_FALSE(store.pod("ns", "p"));
  store.upsert_node(parse(R"({"metadata":{"name":"n","annotations":[]}})"));
  EXPECT_FALSE(store.node("n"));
}

}  // namespace
}  // namespace hami::kube
