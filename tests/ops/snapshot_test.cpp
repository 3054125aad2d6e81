// snapshot against the fake API server: the demo cluster served by it is
// read (GET only) into a file-backend snapshot that loads back and filters
// exactly as a scheduler on the live cluster (the Kubernetes backend) does;
// --anonymize renames consistently and leaks no original name.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>

#include "cluster/file_cluster.hpp"
#include "fake_apiserver.hpp"
#include "kube/kube_cluster.hpp"
#include "ops/live_snapshot.hpp"
#include "ops/ops_context.hpp"
#include "ops_test_support.hpp"

namespace hami::ops {
namespace {

using test::run_command;
using test::source_path;

std::string to_text(const rapidjson::Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return {buffer.GetString(), buffer.GetSize()};
}

// The fake API server serving config/demo-cluster.yaml, a host config and
// kubeconfig naming it.
class LiveDemo : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto demo = cluster::FileClusterState::load(source_path("config/demo-cluster.yaml"));
    rapidjson::Document list;
    const std::string json = demo->to_json();
    list.Parse(json.data(), json.size());
    for (auto& item : list["items"].GetArray()) {
      item["metadata"].RemoveMember("resourceVersion");
      fake_.apply(to_text(item));
    }
    dir_ = std::filesystem::temp_directory_path() /
           ("hami-ops-snapshot-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    const auto kubeconfig = dir_ / "kubeconfig";
    std::ofstream(kubeconfig) << "apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n"
                                 "  cluster: {server: \""
                              << fake_.url()
                              << "\"}\nusers:\n- name: u\n  user: {}\ncontexts:\n"
                                 "- name: c\n  context: {cluster: fake, user: u}\n"
                                 "current-context: c\n";
    config_ = dir_ / "config.yaml";
    std::ofstream(config_) << "tls: {selfSigned: true}\nplugins:\n  directory: " << HAMI_PLUGIN_DIR
                           << "\n  deviceConfigFile: " << source_path("config/device-config.yaml")
                           << "\n  devices:\n  - {name: nvidia, library: nvidia.so}\n"
                              "  - {name: amd, library: amd.so}\n"
                              "  admission: {name: vgpu, library: vgpu.so}\n"
                              "  scheduling:\n  - {name: hami-policies, library: "
                              "hami-policies.so}\n"
                              "cluster:\n  source: kubernetes\n  kubernetes: {kubeconfig: "
                           << kubeconfig.string() << ", qps: 0}\n";
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  std::shared_ptr<kube::ApiClient> client() {
    kube::ApiConfig api;
    api.server = fake_.url();
    api.qps = 0;
    api.request_timeout = std::chrono::seconds(5);
    return std::make_shared<kube::ApiClient>(api);
  }

  hami::testing::FakeApiServer fake_;
  std::filesystem::path dir_;
  std::filesystem::path config_;
  std::ostringstream log_sink_;
  log::Logger logger_{log::Level::warn, log::Format::text, &log_sink_};
};

// Filter's answer for every pending demo pod, as text: fitting nodes, then
// the reason per rejected node.
std::string filter_answers(scheduling::Scheduler& scheduler, const cluster::ClusterState& state,
                           const std::map<std::string, std::string>& rename = {}) {
  std::vector<std::string> nodes;
  for (const auto& n : state.nodes())
    nodes.emplace_back(n->name());
  const auto back = [&](const std::string& name) {
    for (const auto& [from, to] : rename) {
      if (to == name)
        return from;
    }
    return name;
  };
  std::string out;
  std::vector<std::shared_ptr<const cluster::PodRecord>> pods;
  for (const auto& pod : state.pods()) {
    if (pod->node_name.empty())
      pods.push_back(pod);
  }
  std::set<std::string> lines;
  for (const auto& pod : pods) {
    const auto outcome = scheduler.filter(*pod->model, nodes);
    std::set<std::string> fit, failed;
    for (size_t i : outcome.fit)
      fit.insert(back(nodes[i]));
    for (const auto* m : {&outcome.failed, &outcome.unresolvable}) {
      for (const auto& [node, reason] : *m)
        failed.insert(back(node) + ": " + reason);
    }
    std::string line = "fits:";
    for (const auto& f : fit)
      line += " " + f;
    line += " | ";
    for (const auto& f : failed)
      line += f + "; ";
    lines.insert(line);
  }
  for (const auto& l : lines)
    out += l + "\n";
  return out;
}

TEST_F(LiveDemo, SnapshotLoadsBackAndFiltersAsTheLiveCluster) {
  auto api = client();
  const std::string text = read_live_snapshot(*api);
  // Only lists were asked for.
  for (const auto& r : fake_.requests())
    EXPECT_EQ(r.method, "GET") << r.path;
  const auto copy = cluster::FileClusterState::from_text(text, "snapshot");
  EXPECT_EQ(copy->nodes().size(), 6u);
  EXPECT_EQ(copy->pods().size(), 9u);
  EXPECT_EQ(copy->quotas().size(), 1u);
  EXPECT_EQ(copy->namespaces().size(), 3u);

  OpsOptions options;
  options.config = config_;
  const auto ctx = OpsContext::open(options, logger_);
  // The context itself read the cluster the same way.
  EXPECT_EQ(ctx->cluster().nodes().size(), 6u);

  kube::KubernetesClusterState live(client(), {});
  live.start();
  ASSERT_TRUE(live.wait_synced(std::chrono::seconds(20))) << live.sync_status();
  const auto live_scheduler = ctx->make_scheduler(live);
  const auto copy_scheduler = ctx->make_scheduler(*copy);
  const std::string expected = filter_answers(*live_scheduler, live);
  EXPECT_EQ(filter_answers(*copy_scheduler, *copy), expected);
  EXPECT_EQ(filter_answers(ctx->scheduler(), ctx->cluster()), expected);
  // Three pending pods with answers that differ: the comparison has teeth.
  EXPECT_EQ(std::count(expected.begin(), expected.end(), '\n'), 3);
  EXPECT_NE(expected.find("fits: gpu-a100-0 gpu-a100-1 gpu-a100-mig-0 gpu-t4-0 |"),
            std::string::npos)
      << expected;
  live.stop();
}

TEST_F(LiveDemo, SnapshotCommandWritesTheListAndTheFileBackendLoadsIt) {
  const auto run =
      run_command("snapshot", {"--config", config_.string(), "--cluster", "kubernetes"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_TRUE(run.out.starts_with("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n"));
  EXPECT_TRUE(run.out.ends_with("\n]}\n"));
  // One object per line.
  EXPECT_EQ(std::count(run.out.begin(), run.out.end(), '\n'), 6 + 9 + 1 + 3 + 2);
  const auto copy = cluster::FileClusterState::from_text(run.out, "stdout");
  EXPECT_EQ(copy->pods().size(), 9u);
  // Trimmed: container env and the like are not kept.
  EXPECT_EQ(run.out.find("\"env\""), std::string::npos);
}

// explain on the live cluster reads it once (GET only) and answers as on
// the file snapshot it was seeded from.
TEST_F(LiveDemo, ExplainOnTheLiveClusterAnswersAsOnTheSnapshotAndOnlyReads) {
  fake_.clear_requests();
  const auto live = run_command("explain", {"--config", config_.string(), "--cluster", "kubernetes",
                                            "--pod", "ml/demo-infer"});
  ASSERT_EQ(live.code, 0) << live.err;
  for (const auto& r : fake_.requests())
    EXPECT_EQ(r.method, "GET") << r.path;
  const auto file = run_command(
      "explain", {"--config", config_.string(), "--cluster",
                  "file:" + source_path("config/demo-cluster.yaml"), "--pod", "ml/demo-infer"});
  ASSERT_EQ(file.code, 0) << file.err;
  EXPECT_EQ(live.out, file.out);
  EXPECT_NE(live.out.find("4 of 6 nodes fit; best gpu-a100-1 (score 4)"), std::string::npos)
      << live.out;
}

TEST_F(LiveDemo, AnonymizedSnapshotIsConsistentAndLeaksNoName) {
  LiveSnapshotOptions options;
  options.anonymize = true;
  const std::string text = read_live_snapshot(*client(), options);
  const auto demo = cluster::FileClusterState::load(source_path("config/demo-cluster.yaml"));
  std::set<std::string> originals;
  for (const auto& n : demo->nodes())
    originals.emplace(n->name());
  for (const auto& p : demo->pods()) {
    originals.insert(p->name);
    originals.insert(p->namespace_);
    originals.insert(p->uid);
  }
  for (const auto& q : demo->quotas())
    originals.insert(q.name);
  for (const std::string& name : originals)
    EXPECT_EQ(text.find("\"" + name + "\""), std::string::npos) << name;
  for (const std::string_view name : {"gpu-a100-0", "llm-infer-0", "demo-infer", "gpu-quota"})
    EXPECT_EQ(text.find(name), std::string::npos) << name;

  const auto copy = cluster::FileClusterState::from_text(text, "anonymized");
  // Nodes in name order: cpu-0, gpu-a100-0, gpu-a100-1, gpu-a100-mig-0,
  // gpu-mi300x-0, gpu-t4-0; namespaces ml, rocm, vision.
  const std::map<std::string, std::string> rename = {
      {"cpu-0", "node-1"},          {"gpu-a100-0", "node-2"},   {"gpu-a100-1", "node-3"},
      {"gpu-a100-mig-0", "node-4"}, {"gpu-mi300x-0", "node-5"}, {"gpu-t4-0", "node-6"}};
  std::vector<std::string> nodes;
  for (const auto& n : copy->nodes())
    nodes.emplace_back(n->name());
  EXPECT_EQ(nodes,
            (std::vector<std::string>{"node-1", "node-2", "node-3", "node-4", "node-5", "node-6"}));
  // Pods keep their node under its new name, in spec.nodeName, the
  // hami.io/vgpu-node annotation and the quota's namespace.
  size_t bound = 0;
  for (const auto& p : copy->pods()) {
    EXPECT_TRUE(p->namespace_ == "ns-1" || p->namespace_ == "ns-2" || p->namespace_ == "ns-3");
    EXPECT_TRUE(p->name.starts_with("pod-")) << p->name;
    if (!p->node_name.empty()) {
      ++bound;
      EXPECT_TRUE(p->node_name.starts_with("node-"));
      if (const auto assigned = p->annotation("hami.io/vgpu-node")) {
        EXPECT_EQ(*assigned, p->node_name);
      }
    }
  }
  EXPECT_EQ(bound, 6u);
  ASSERT_EQ(copy->quotas().size(), 1u);
  EXPECT_EQ(copy->quotas()[0].namespace_, "ns-1");
  EXPECT_EQ(copy->quotas()[0].name, "quota-1");

  // It schedules as the original, names mapped back.
  OpsOptions ops;
  ops.config = config_;
  const auto ctx = OpsContext::open(ops, logger_);
  const auto scheduler = ctx->make_scheduler(*copy);
  EXPECT_EQ(filter_answers(*scheduler, *copy, rename),
            filter_answers(ctx->scheduler(), ctx->cluster()));
}

TEST_F(LiveDemo, NodeLockAndLabelsAreRenamedUnknownNamesDropped) {
  // apiVersion given: the fake store does not add it to a replaced object safely.
  fake_.apply(
      R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"gpu-a100-0","labels":{"kubernetes.io/hostname":"gpu-a100-0","owner":"team-of-llm-infer-0"},"annotations":{"hami.io/mutex.lock":"2026-01-01T00:00:00Z,ml,llm-infer-0","note":"runs llm-infer-0 now"}}})");
  LiveSnapshotOptions options;
  options.anonymize = true;
  const std::string text = read_live_snapshot(*client(), options);
  const auto copy = cluster::FileClusterState::from_text(text, "anonymized");
  const auto node = copy->node("node-2");
  ASSERT_TRUE(node);
  // ml is ns-1; ml/llm-infer-0 is the 2nd pod of ml in name order
  // (demo-infer, demo-mig, embed-mig-0, etl-0, llm-infer-0, train-0).
  EXPECT_EQ(node->annotation("hami.io/mutex.lock"), "2026-01-01T00:00:00Z,ns-1,pod-5");
  EXPECT_EQ(node->label("kubernetes.io/hostname"), "node-2");
  EXPECT_FALSE(node->annotation("note"));
  // "team-of-llm-infer-0" is one word, not the name: it stays.
  EXPECT_EQ(node->label("owner"), "team-of-llm-infer-0");
  const auto pod = copy->pod("ns-1", "pod-5");
  ASSERT_TRUE(pod);
  EXPECT_EQ(pod->node_name, "node-2");
}

// The paths of an object's members ("spec.containers[].name"); the members
// of labels, annotations and resource lists end the path: their keys are data.
void field_paths(const rapidjson::Value& v, const std::string& path, std::set<std::string>& out) {
  static const std::set<std::string> kMaps = {"labels",      "annotations", "limits", "requests",
                                              "allocatable", "capacity",    "hard"};
  const std::string last =
      path.substr(path.rfind('.') == std::string::npos ? 0 : path.rfind('.') + 1);
  if (v.IsObject() && !kMaps.contains(last)) {
    for (const auto& m : v.GetObject())
      field_paths(m.value, (path.empty() ? "" : path + ".") + m.name.GetString(), out);
  } else if (v.IsArray()) {
    for (const auto& item : v.GetArray())
      field_paths(item, path + "[]", out);
  } else {
    out.insert(path);
  }
}

// Every field an anonymized snapshot may keep, per kind (docs/simulate.md
// lists them): what the scheduler reads, nothing else.
const std::map<std::string, std::set<std::string>> kAnonymizedFields = {
    {"Pod",
     {"apiVersion",
      "kind",
      "metadata.name",
      "metadata.namespace",
      "metadata.resourceVersion",
      "metadata.deletionTimestamp",
      "metadata.labels",
      "metadata.annotations",
      "spec.schedulerName",
      "spec.nodeName",
      "spec.runtimeClassName",
      "spec.schedulingGroup.podGroupName",
      "spec.initContainers[].name",
      "spec.initContainers[].restartPolicy",
      "spec.initContainers[].securityContext.privileged",
      "spec.initContainers[].resources.limits",
      "spec.initContainers[].resources.requests",
      "spec.containers[].name",
      "spec.containers[].restartPolicy",
      "spec.containers[].securityContext.privileged",
      "spec.containers[].resources.limits",
      "spec.containers[].resources.requests",
      "status.phase",
      "status.initContainerStatuses[].state.terminated.exitCode"}},
    {"Node",
     {"apiVersion", "kind", "metadata.name", "metadata.resourceVersion", "metadata.labels",
      "metadata.annotations", "status.allocatable", "status.capacity"}},
    {"ResourceQuota",
     {"apiVersion", "kind", "metadata.name", "metadata.namespace", "metadata.resourceVersion",
      "spec.hard"}},
    {"Namespace",
     {"apiVersion", "kind", "metadata.name", "metadata.resourceVersion", "metadata.labels"}},
};

// A file snapshot carries whole objects (the demo's container images name
// registry.example.com); the anonymized copy keeps only the listed fields.
TEST(SnapshotCommand, AnonymizedFileSnapshotKeepsOnlyTheListedFields) {
  const auto run = run_command(
      "snapshot", {"--cluster", "file:" + source_path("config/demo-cluster.yaml"), "--anonymize"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.out.find("registry.example.com"), std::string::npos);
  EXPECT_EQ(run.out.find("\"image\""), std::string::npos);
  rapidjson::Document doc;
  doc.Parse(run.out.c_str());
  ASSERT_TRUE(doc.IsObject());
  size_t pods = 0;
  for (const auto& item : doc["items"].GetArray()) {
    const std::string kind = item["kind"].GetString();
    pods += kind == "Pod" ? 1u : 0u;
    ASSERT_TRUE(kAnonymizedFields.contains(kind)) << kind;
    std::set<std::string> paths;
    field_paths(item, "", paths);
    for (const std::string& path : paths)
      EXPECT_TRUE(kAnonymizedFields.at(kind).contains(path)) << kind << " " << path;
  }
  EXPECT_EQ(pods, 9u);
}

TEST(SnapshotCommand, FileSourceAnonymizedAndUsage) {
  const auto run = run_command(
      "snapshot", {"--cluster", "file:" + source_path("config/demo-cluster.yaml"), "--anonymize"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.out.find("gpu-a100"), std::string::npos);
  EXPECT_EQ(cluster::FileClusterState::from_text(run.out, "stdout")->nodes().size(), 6u);
  auto bad = run_command("snapshot", {"--anonymise"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(bad.err.substr(0, bad.err.find('\n')), "snapshot: unexpected argument \"--anonymise\"");
  bad = run_command("snapshot", {"--cluster", "file:/nonexistent/x.yaml"});
  EXPECT_EQ(bad.code, 1);
  EXPECT_EQ(bad.err.substr(0, bad.err.find(':', 10)), "snapshot: --cluster");
}

}  // namespace
}  // namespace hami::ops
