#include "cluster/file_cluster.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "../support/yaml_alias_bomb.hpp"

namespace {

using namespace hami::cluster;

constexpr const char* kSnapshot = R"(
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: node-a
    resourceVersion: "100"
    annotations:
      hami.io/node-nvidia-register: '[{"id":"GPU-a","count":10,"devmem":40960}]'
  status:
    allocatable:
      nvidia.com/gpu: 10
- apiVersion: v1
  kind: Pod
  metadata:
    name: running
    namespace: ml
    uid: uid-running
    annotations:
      hami.io/vgpu-node: node-a
  spec:
    nodeName: node-a
    initContainers:
    - name: init
    containers:
    - name: main
      resources:
        limits:
          nvidia.com/gpu: 1
  status:
    phase: Running
    initContainerStatuses:
    - name: init
      state:
        terminated:
          exitCode: 0
---
kind: Pod
metadata:
  name: pending
spec:
  containers:
  - name: c
---
apiVersion: v1
kind: ResourceQuotaList
items:
- metadata:
    name: gpu-quota
    namespace: ml
  spec:
    hard:
      limits.nvidia.com/gpumem: "20000"
      limits.nvidia.com/gpucores: 200
---
kind: Namespace
metadata:
  name: ml
  labels:
    team: research
---
kind: ConfigMap
metadata:
  name: ignored
)";

class Recorder final : public ClusterWatcher {
 public:
  void node_upserted(const std::shared_ptr<const hami::k8s::NodeModel>& node) override {
    log.push_back("node+" + std::string(node->name()));
  }
  void node_deleted(std::string_view name) override { log.push_back("node-" + std::string(name)); }
  void pod_upserted(const std::shared_ptr<const PodRecord>& pod) override {
    log.push_back("pod+" + pod->namespace_ + "/" + pod->name + "@" + pod->resource_version);
    pod_uids.push_back("+" + pod->uid + " " + pod->node_name);
  }
  void pod_deleted(const std::shared_ptr<const PodRecord>& pod) override {
    log.push_back("pod-" + pod->namespace_ + "/" + pod->name);
    pod_uids.push_back("-" + pod->uid + " " + pod->node_name);
  }
  void quotas_changed() override { log.push_back("quotas"); }
  std::vector<std::string> log;
  // "+<uid> <node>" / "-<uid> <node>" per pod notification, in order.
  std::vector<std::string> pod_uids;
};

rapidjson::Document parse_json(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse(text.data(), text.size());
  EXPECT_FALSE(doc.HasParseError()) << text;
  return doc;
}

TEST(FileCluster, LoadsListsTypedListsAndSingleDocuments) {
  const auto state = FileClusterState::from_text(kSnapshot, "snapshot.yaml");
  ASSERT_EQ(state->nodes().size(), 1u);
  const auto node = state->node("node-a");
  ASSERT_TRUE(node);
  EXPECT_EQ(node->resource_version(), "100");
  EXPECT_EQ(node->annotation("hami.io/node-nvidia-register"),
            R"([{"id":"GPU-a","count":10,"devmem":40960}])");
  ASSERT_EQ(state->pods().size(), 2u);

  const auto running = state->pod("ml", "running");
  ASSERT_TRUE(running);
  EXPECT_EQ(running->uid, "uid-running");
  EXPECT_EQ(running->node_name, "node-a");
  EXPECT_EQ(running->phase, "Running");
  EXPECT_TRUE(running->init_containers_succeeded);
  EXPECT_EQ(running->annotation("hami.io/vgpu-node"), "node-a");
  EXPECT_EQ(running->model->view().containers_len, 2u);

  // Namespace defaults to "default"; a missing uid gets a stable one.
  const auto pending = state->pod("default", "pending");
  ASSERT_TRUE(pending);
  EXPECT_EQ(pending->uid, "file-default-pending");
  EXPECT_FALSE(pending->init_containers_succeeded);
  EXPECT_FALSE(pending->resource_version.empty());

  const auto quotas = state->quotas();
  ASSERT_EQ(quotas.size(), 1u);
  EXPECT_EQ(quotas[0].namespace_, "ml");
  ASSERT_EQ(quotas[0].hard.size(), 2u);
  EXPECT_EQ(quotas[0].hard[0],
            (std::pair<std::string, std::string>{"limits.nvidia.com/gpumem", "20000"}));
  EXPECT_EQ(quotas[0].hard[1].second, "200");

  const auto namespaces = state->namespaces();
  ASSERT_EQ(namespaces.size(), 1u);
  EXPECT_EQ(namespaces[0].labels[0].second, "research");
}

TEST(FileCluster, LoadsJson) {
  const auto state = FileClusterState::from_text(
      R"({"kind":"NodeList","items":[{"metadata":{"name":"j1"}},{"metadata":{"name":"j2"}}]})",
      "x.json");
  EXPECT_EQ(state->nodes().size(), 2u);
}

// The SnapshotError message from_text gives for `text`; "loaded" when it
// loads.
std::string snapshot_error(const std::string& text, std::string_view name) {
  try {
    FileClusterState::from_text(text, name);
  } catch (const SnapshotError& e) {
    return e.what();
  }
  return "loaded";
}

TEST(FileCluster, ErrorsNameTheFileAndObject) {
  const auto expect_error = [](const char* text, const std::string& what) {
    EXPECT_EQ(snapshot_error(text, "bad.yaml"), what) << text;
  };
  expect_error("kind: Node\nmetadata:\n  name: n\n  annotations:\n    a: 1\n",
               "bad.yaml: Node n: /metadata/annotations/a: expected a string, got a number");
  expect_error("kind: Pod\nmetadata:\n  namespace: x\n",
               "bad.yaml: Pod x/: /metadata/name: is required");
  expect_error("{\"kind\": ", "bad.yaml: invalid JSON at offset 9: Invalid value.");
  expect_error("kind: [",
               std::string("bad.yaml: invalid YAML: ") +
                   "yaml-cpp: error at line 1, column 1: end of sequence flow not found");
}

TEST(FileCluster, KeepsObjectsAsCompactNormalisedJsonThroughWrites) {
  // Whitespace goes, escapes and numbers come out as the JSON writer spells
  // them, the members the store fills in are appended, and writes change
  // only what they name.
  const auto state = FileClusterState::from_text(R"({
    "kind": "List",
    "items": [
      { "kind": "Node",
        "metadata": { "name": "n1", "annotations": { "a": "x\"y\u00e9" } },
        "status": { "allocatable": { "nvidia.com/gpu": 2 } },
        "x": 1.5e3 },
      { "metadata": { "name": "p1" }, "kind": "Pod",
        "spec": { "containers": [ { "name": "c" } ] } }
    ]
  })",
                                                 "s.json");
  EXPECT_EQ(
      state->to_json(),
      R"({"apiVersion":"v1","kind":"List","items":[)"
      R"({"kind":"Node","metadata":{"name":"n1","annotations":{"a":"x\"y)"
      "\xc3\xa9"
      R"("},"resourceVersion":"1"},"status":{"allocatable":{"nvidia.com/gpu":2}},"x":1500.0},)"
      R"({"metadata":{"name":"p1","resourceVersion":"2","namespace":"default",)"
      R"("uid":"file-default-p1"},"kind":"Pod","spec":{"containers":[{"name":"c"}]}}]})");

  state->patch_node_annotations("n1", {{"b", "1"}, {"a", std::nullopt}}, std::string_view("1"));
  state->bind("default", "p1", "file-default-p1", "n1");
  EXPECT_EQ(state->node("n1")->resource_version(), "3");
  EXPECT_EQ(state->node("n1")->annotation("b"), "1");
  EXPECT_EQ(state->pod("default", "p1")->node_name, "n1");
  EXPECT_EQ(state->to_json(),
            R"({"apiVersion":"v1","kind":"List","items":[)"
            R"({"kind":"Node","metadata":{"name":"n1","annotations":{"b":"1"},)"
            R"("resourceVersion":"3"},"status":{"allocatable":{"nvidia.com/gpu":2}},"x":1500.0},)"
            R"({"metadata":{"name":"p1","resourceVersion":"4","namespace":"default",)"
            R"("uid":"file-default-p1"},"kind":"Pod","spec":{"containers":[{"name":"c"}],)"
            R"("nodeName":"n1"}}]})");
}

TEST(FileCluster, ReadsZeroWithAnExponent) {
  // RapidJSON 1.1.0's full-precision mode computed __builtin_clzll(0) on
  // these (undefined; UBSan stops the sanitizer build).
  const auto state = FileClusterState::from_text(
      R"({"kind":"Node","metadata":{"name":"n"},"x":[0e44,-0E44,0.000e-30,2.5e3]})", "zero.json");
  EXPECT_EQ(state->to_json(), R"({"apiVersion":"v1","kind":"List","items":[)"
                              R"({"kind":"Node","metadata":{"name":"n","resourceVersion":"1"},)"
                              R"("x":[0.0,-0.0,0.0,2500.0]}]})");
}

TEST(FileCluster, RefusesANumberReadAsInfinity) {
  // RapidJSON reads these as infinity without an error; the object was
  // stored as broken, truncated JSON ("x":[1.7976931348623157e308,).
  for (const char* number : {"1.7976931348623159e308", "1.7976931348623157e324"}) {
    EXPECT_EQ(
        snapshot_error(
            std::string(R"({"kind":"Node","metadata":{"name":"n"},"x":[1.7976931348623157e308,)") +
                number + "]}",
            "inf.json"),
        "inf.json: Node n: a number is beyond the range of a double")
        << number;
  }
}

TEST(FileCluster, StoresTheKindAnObjectWasTakenFor) {
  // Items of a PodList whose own kind is not a usable string are Pods; the
  // dump says so, or loading it again would drop them.
  const auto state = FileClusterState::from_text(
      R"({"kind":"PodList","items":[{"kind":5,"metadata":{"name":"a"}},)"
      R"({"kind":"","metadata":{"name":"b"}}]})",
      "typed.json");
  ASSERT_EQ(state->pods().size(), 2U);
  const std::string dump = state->to_json();
  EXPECT_EQ(dump, R"({"apiVersion":"v1","kind":"List","items":[)"
                  R"({"kind":"Pod","metadata":{"name":"a","resourceVersion":"1",)"
                  R"("namespace":"default","uid":"file-default-a"}},)"
                  R"({"kind":"Pod","metadata":{"name":"b","resourceVersion":"2",)"
                  R"("namespace":"default","uid":"file-default-b"}}]})");
  EXPECT_EQ(FileClusterState::from_text(dump, "dump")->pods().size(), 2U);
}

TEST(FileCluster, UpsertKeepsItsOwnCopyOfTheObject) {
  const auto state = FileClusterState::from_text("", "empty");
  rapidjson::Document node;
  node.Parse(R"({"kind":"Node","metadata":{"name":"n2","resourceVersion":"7"}})");
  state->upsert(node);
  node.RemoveAllMembers();
  EXPECT_EQ(state->to_json(),
            R"({"apiVersion":"v1","kind":"List","items":[)"
            R"({"kind":"Node","metadata":{"name":"n2","resourceVersion":"7"}}]})");
}

TEST(FileCluster, RefusesASnapshotWithANulByte) {
  // JSON: the parse stopped at the NUL and the node after it was dropped.
  const std::string json("{\"kind\":\"List\",\"items\":[]}\0{\"kind\":\"Node\"}", 42);
  EXPECT_EQ(snapshot_error(json, "nul.json"),
            "nul.json: a NUL byte at offset 26 (neither JSON nor YAML text may contain one)");
  // YAML: yaml-cpp's LoadAll looped on this one, allocating without end.
  const std::string yaml = ",skind: ResourceQuotaods :5}" + std::string(112, '\0') + "}\n: x}}\n";
  EXPECT_EQ(snapshot_error(yaml, "nul.yaml"),
            "nul.yaml: a NUL byte at offset 28 (neither JSON nor YAML text may contain one)");
}

TEST(FileCluster, RefusesSnapshotsNestingDeeperThanTheParsersBound) {
  // 100,000 levels overflowed the stack of the recursive parser.
  const std::string deep = R"({"kind":"Node","metadata":{"name":"n"},"x":)" +
                           std::string(100000, '[') + std::string(100000, ']') + "}";
  EXPECT_EQ(snapshot_error(deep, "deep.json"), "deep.json: nests JSON deeper than 512 levels");
  // yaml-cpp stops nested block sequences itself before 512 levels.
  std::string yaml = "kind: Node\nmetadata:\n  name: n\nx:\n";
  for (int i = 0; i < 600; ++i)
    yaml += "- ";
  yaml += "1\n";
  const std::string deep_yaml = snapshot_error(yaml, "deep.yaml");
  EXPECT_EQ(deep_yaml.rfind("deep.yaml: invalid YAML: ", 0), 0U) << deep_yaml;
  // 500 levels inside an object are still read.
  const std::string fine = R"({"kind":"Node","metadata":{"name":"n"},"x":)" +
                           std::string(500, '[') + std::string(500, ']') + "}";
  EXPECT_EQ(FileClusterState::from_text(fine, "fine.json")->nodes().size(), 1U);
}

TEST(FileCluster, RefusesAYamlSnapshotWhoseAliasesExpandPastItsBudget) {
  const std::string yaml = hami::testing::yaml_alias_bomb("kind: Node\nmetadata:\n  name: n\n");
  // 8 × the YAML's size plus 1 MiB.
  const std::string budget = std::to_string(8 * yaml.size() + 1024 * 1024);
  const std::string error = snapshot_error(yaml, "bomb.yaml");
  EXPECT_NE(error.find(": converts to more than " + budget + " bytes of JSON"), std::string::npos)
      << error;
}

TEST(FileCluster, RefusesAYamlSnapshotTheParserCannotAdvanceIn) {
  // yaml-cpp 0.7's LoadAll looped on a lone comma, allocating without end.
  EXPECT_EQ(snapshot_error("kind: Namespace\nmetadata: {name: a}\n---\n,\n", "comma.yaml"),
            "comma.yaml: invalid YAML: yaml-cpp: error at line 4, column 1: "
            "expected a YAML value here");
}

TEST(FileCluster, LoadsAYamlStreamOfManySmallDocuments) {
  std::string yaml;
  for (int i = 0; i < 3000; ++i)
    yaml += "---\nkind: Namespace\nmetadata: {name: ns-" + std::to_string(i) + "}\n";
  EXPECT_EQ(FileClusterState::from_text(yaml, "many.yaml")->namespaces().size(), 3000U);
}

TEST(FileCluster, LoadsASnapshotFileLargerThanOneReadChunk) {
  // 400 nodes of ~600 bytes: several 64 KiB reads.
  std::string text = R"({"kind":"NodeList","items":[)";
  for (int i = 0; i < 400; ++i) {
    if (i > 0)
      text += ',';
    text += R"({"metadata":{"name":"node-)" + std::to_string(i) + R"(","labels":{"pad":")" +
            std::string(560, 'x') + R"("}}})";
  }
  text += "]}";
  ASSERT_GT(text.size(), 3U * 64 * 1024);
  const std::filesystem::path file = std::filesystem::temp_directory_path() /
                                     ("hami-file-cluster-" + std::to_string(::getpid()) + ".json");
  {
    std::ofstream out(file, std::ios::binary);
    out << text;
  }
  const auto state = FileClusterState::load(file);
  std::filesystem::remove(file);
  EXPECT_EQ(state->nodes().size(), 400U);
  ASSERT_NE(state->node("node-399"), nullptr);
  EXPECT_EQ(state->node("node-399")->label("pad"), std::string(560, 'x'));
  try {
    FileClusterState::load(file);
    FAIL();
  } catch (const SnapshotError& e) {
    EXPECT_EQ(std::string(e.what()), file.string() + ": cannot open the cluster snapshot");
  }
}

TEST(FileCluster, PatchPodMetadataSetsAndRemovesAndBumpsRevision) {
  const auto state = FileClusterState::from_text(kSnapshot, "s");
  const std::string before = state->pod("ml", "running")->resource_version;
  state->patch_pod_metadata(
      "ml", "running",
      {{{"hami.io/bind-phase", "allocating"}, {"hami.io/vgpu-node", std::nullopt}},
       {{"hami.io/vgpu-node", "node-a"}}},
      std::nullopt);
  const auto pod = state->pod("ml", "running");
  EXPECT_EQ(pod->annotation("hami.io/bind-phase"), "allocating");
  EXPECT_FALSE(pod->annotation("hami.io/vgpu-node"));
  EXPECT_NE(pod->resource_version, before);
  EXPECT_NE(state->to_json().find(R"("labels":{"hami.io/vgpu-node":"node-a"})"), std::string::npos);

  try {
    state->patch_pod_metadata("ml", "running", {}, std::string_view("other-uid"));
    FAIL();
  } catch (const ClusterError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Conflict);
  }
  try {
    state->patch_pod_metadata("ml", "absent", {}, std::nullopt);
    FAIL();
  } catch (const ClusterError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::NotFound);
    EXPECT_STREQ(e.what(), "pods \"absent\" not found");
  }
}

TEST(FileCluster, ConditionalNodePatchDetectsConcurrentChange) {
  const auto state = FileClusterState::from_text(kSnapshot, "s");
  const auto node = state->node("node-a");
  state->patch_node_annotations("node-a", {{"x", "1"}}, node->resource_version());
  // The same, now stale, resourceVersion no longer matches.
  try {
    state->patch_node_annotations("node-a", {{"x", "2"}}, node->resource_version());
    FAIL();
  } catch (const ClusterError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Conflict);
  }
  EXPECT_EQ(state->node("node-a")->annotation("x"), "1");
  // Revisions continue above the snapshot's own numbers.
  EXPECT_GT(std::stoull(std::string(state->node("node-a")->resource_version())), 100u);
}

TEST(FileCluster, BindSetsNodeNameAndRefusesAnotherNode) {
  const auto state = FileClusterState::from_text(kSnapshot, "s");
  state->bind("default", "pending", "file-default-pending", "node-a");
  EXPECT_EQ(state->pod("default", "pending")->node_name, "node-a");
  EXPECT_NO_THROW(state->bind("default", "pending", "", "node-a"));  // same node: idempotent
  try {
    state->bind("default", "pending", "", "node-b");
    FAIL();
  } catch (const ClusterError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Conflict);
    EXPECT_STREQ(e.what(),
                 "Operation cannot be fulfilled on pods/binding \"pending\": pod pending is "
                 "already assigned to node \"node-a\"");
  }
  try {
    state->bind("ml", "running", "wrong", "node-a");
    FAIL();
  } catch (const ClusterError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Conflict);
  }
}

TEST(FileCluster, WatchReplaysThenReportsWritesInOrder) {
  const auto state = FileClusterState::from_text(kSnapshot, "s");
  Recorder rec;
  state->watch(rec);
  ASSERT_EQ(rec.log.size(), 4u);
  EXPECT_EQ(rec.log[0], "node+node-a");
  EXPECT_EQ(rec.log[3], "quotas");
  rec.log.clear();
  state->patch_pod_metadata("default", "pending", {{{"k", "v"}}, {}}, std::nullopt);
  state->delete_pod("ml", "running");
  state->delete_node("node-a");
  ASSERT_EQ(rec.log.size(), 3u);
  EXPECT_EQ(rec.log[0].rfind("pod+default/pending@", 0), 0u);
  EXPECT_EQ(rec.log[1], "pod-ml/running");
  EXPECT_EQ(rec.log[2], "node-node-a");
  state->unwatch(rec);
  state->delete_pod("default", "pending");
  EXPECT_EQ(rec.log.size(), 3u);
}

// A StatefulSet's pod deleted and re-created under its name, the store
// told only of the new one: the old uid is deleted first, then the new
// pod arrives as itself (pending, not on the old pod's node). An update of
// the same uid stays a plain upsert.
TEST(FileCluster, PodReCreatedUnderItsNameDeletesTheOldUidFirst) {
  const auto state = FileClusterState::from_text(kSnapshot, "s");
  Recorder rec;
  state->watch(rec);
  rec.log.clear();
  rec.pod_uids.clear();
  state->upsert(
      parse_json(R"({"kind":"Pod","metadata":{"name":"running","namespace":"ml","uid":"uid-new"},)"
                 R"("spec":{"containers":[{"name":"main"}]},"status":{"phase":"Pending"}})"));
  EXPECT_EQ(rec.pod_uids, (std::vector<std::string>{"-uid-running node-a", "+uid-new "}));
  ASSERT_EQ(rec.log.size(), 2u);
  EXPECT_EQ(rec.log[0], "pod-ml/running");
  const auto pod = state->pod("ml", "running");
  ASSERT_TRUE(pod);
  EXPECT_EQ(pod->uid, "uid-new");
  EXPECT_EQ(pod->node_name, "");
  EXPECT_EQ(pod->phase, "Pending");
  EXPECT_EQ(state->pods().size(), 2u);
  rec.pod_uids.clear();
  state->upsert(
      parse_json(R"({"kind":"Pod","metadata":{"name":"running","namespace":"ml","uid":"uid-new"},)"
                 R"("spec":{"nodeName":"node-a","containers":[{"name":"main"}]}})"));
  EXPECT_EQ(rec.pod_uids, (std::vector<std::string>{"+uid-new node-a"}));
  state->unwatch(rec);
}

TEST(FileCluster, EventsAreKeptUpToCapacity) {
  FileClusterState state;
  for (size_t i = 0; i < FileClusterState::kEventCapacity + 5; ++i) {
    state.record_event({"Pod", "ns", "p" + std::to_string(i), "", "Normal", "R", "m", "test"});
  }
  const auto events = state.events();
  ASSERT_EQ(events.size(), FileClusterState::kEventCapacity);
  EXPECT_EQ(events.front().name, "p5");
}

// Large messages (a FilteringSucceed listing 1,000 scores is ~19 KB) are
// bounded by their text as well: the newest are kept within kEventBytes,
// and one event larger than the bound alone is still kept.
TEST(FileCluster, EventsAreKeptUpToTheirTextBound) {
  FileClusterState state;
  const std::string message(100 * 1024, 'm');
  for (int i = 0; i < 30; ++i)
    state.record_event({"Pod", "ns", "p" + std::to_string(i), "", "Normal", "R", message, "t"});
  auto events = state.events();
  const size_t fit = FileClusterState::kEventBytes / message.size();
  ASSERT_EQ(events.size(), fit) << "about ten 100 KiB messages fit in 1 MiB";
  EXPECT_EQ(events.back().name, "p29");
  EXPECT_EQ(events.front().name, "p" + std::to_string(30 - fit));

  state.record_event({"Pod", "ns", "huge", "", "Normal", "R",
                      std::string(FileClusterState::kEventBytes * 2, 'h'), "t"});
  events = state.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events.front().name, "huge");
}

TEST(FileCluster, ConcurrentWritersNeverLoseUpdates) {
  const auto state = FileClusterState::from_text(kSnapshot, "s");
  constexpr int kThreads = 4;
  constexpr int kWrites = 50;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kWrites; ++i) {
        state->patch_pod_metadata("default", "pending",
                                  {{{"t" + std::to_string(t) + "-" + std::to_string(i), "x"}}, {}},
                                  std::nullopt);
      }
    });
  }
  for (auto& th : threads)
    th.join();
  EXPECT_EQ(state->pod("default", "pending")->model->view().annotations_len,
            static_cast<size_t>(kThreads * kWrites));
}

TEST(FileCluster, OpenClusterStateRefusesUnknownSources) {
  EXPECT_THROW(open_cluster_state("kubernetes", "x"), std::invalid_argument);
  EXPECT_THROW(open_cluster_state("etcd", "x"), std::invalid_argument);
  EXPECT_THROW(open_cluster_state("file", "/nonexistent/snapshot.yaml"), SnapshotError);
}

}  // namespace
