// The hot paths the performance guard counts (scripts/perf-guard.sh), each
// run a fixed number of times on a fixed input, in process, on the calling
// thread alone:
//
//   webhook-gpu         AdmissionService::handle of the 5 KB GPU pod review
//                       (tests/admission/data/admission-gpu.json)
//   filter-names-1000   ExtenderService::filter, 1,000 NodeNames
//   filter-nodes-1000   ExtenderService::filter, 1,000 full Node objects
//                       (the node cache filled by one earlier call)
//   bind                ExtenderService::bind of a pending pod, a new pod and
//                       a new node each time (node lock, pod patch, binding)
//   explain-1000        Scheduler::explain of one pod and its JSON
//
// The cluster: 1,000 nodes of eight 40 GB cards, 20,000 running GPU pods
// (the scheduling benchmark's BM_Filter/1000), in the embedded file backend.
// Setup and one warm-up call run with callgrind's collection off; the
// counted calls are between two CALLGRIND_TOGGLE_COLLECT requests, so
// `valgrind --tool=callgrind --collect-atstart=no` counts exactly them.
// Outside valgrind the requests do nothing and the wall time is printed.
//
// usage: hot_paths CASE CALLS
// Prints "CASE CALLS <wall ns per call>" and exits 0; 2 on bad usage, 1
// when a call does not answer as expected (a guard must not count a
// failing path).
#include <rapidjson/document.h>
#include <valgrind/callgrind.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cluster/file_cluster.hpp"
#include "extender/extender_service.hpp"
#include "nvidia_plugins.hpp"
#include "plugins/host_services.hpp"
#include "plugins/plugin_registry.hpp"
#include "production_webhook.hpp"
#include "scheduling/explain.hpp"
#include "scheduling/scheduler.hpp"
#include "synthetic_cluster.hpp"

namespace {

using namespace hami;

constexpr int kNodes = 1000;
constexpr int kRunningPods = 20000;
// Pending pods `bind-<i>`, one per bind call (and the warm-up), each bound
// to its own node.
constexpr int kBindPods = 200;

std::string cluster_text() {
  std::string list = R"({"kind":"List","items":[)";
  for (int n = 0; n < kNodes; ++n)
    list += (n > 0 ? "," : "") + bench::gpu_node_json(n);
  std::mt19937 rng(7);
  for (int i = 0; i < kRunningPods; ++i) {
    const int gpu = static_cast<int>(rng() % bench::kGpusPerNode);
    const int memory = 1000 + static_cast<int>(rng() % 4) * 500;
    const int cores = static_cast<int>(rng() % 3) * 5;
    list += "," + bench::running_pod_json(i, i % kNodes, gpu, memory, cores);
  }
  for (int i = 0; i < kBindPods; ++i)
    list += "," + bench::pending_pod_json("bind-" + std::to_string(i), 1, 4000, 10);
  list += "]}";
  return list;
}

// The scheduler on the synthetic cluster, as the host wires it with
// nvidia.so and hami-policies.so, its filter on the calling thread only.
struct World {
  bench::NvidiaPlugins plugins{HAMI_BENCH_PLUGIN_DIR};
  std::unique_ptr<cluster::FileClusterState> cluster;
  std::unique_ptr<scheduling::Scheduler> scheduler;
  std::unique_ptr<extender::ExtenderService> extender;

  World() {
    cluster = cluster::FileClusterState::from_text(cluster_text(), "perf-guard");
    scheduling::SchedulerOptions options;
    options.clock = [] { return int64_t{1'750'000'000}; };
    options.filter_workers = 0;
    scheduler = std::make_unique<scheduling::Scheduler>(
        *cluster, plugins.registry.devices(), plugins.registry.scheduling(), std::move(options));
    extender = std::make_unique<extender::ExtenderService>(*scheduler);
  }
  World(const World&) = delete;
  World& operator=(const World&) = delete;
  ~World() {
    extender.reset();
    scheduler.reset();
  }
};

const std::string kFilterPod = bench::pending_pod_json("ask", 2, 4000, 20);

std::string filter_body(bool full_nodes) {
  std::string body = R"({"Pod":)" + kFilterPod;
  if (full_nodes) {
    body += R"(,"Nodes":{"metadata":{},"items":[)";
    for (int n = 0; n < kNodes; ++n)
      body += (n > 0 ? "," : "") + bench::gpu_node_json(n);
    body += R"(]},"NodeNames":null})";
  } else {
    body += R"(,"Nodes":null,"NodeNames":[)";
    for (int n = 0; n < kNodes; ++n)
      body += (n > 0 ? ",\"" : "\"") + bench::gpu_node_name(n) + "\"";
    body += "]}";
  }
  return body;
}

void expect(bool ok, const std::string& what) {
  if (!ok)
    throw std::runtime_error(what);
}

void expect_fit(const extender::Reply& reply) {
  expect(reply.status == 200, "filter answered HTTP " + std::to_string(reply.status));
  const std::string text = reply.joined();
  rapidjson::Document doc;
  doc.Parse(text.c_str(), text.size());
  expect(!doc.HasParseError() && doc.IsObject(), "filter answered no JSON object");
  const auto error = doc.FindMember("Error");
  expect(
      error == doc.MemberEnd() || !error->value.IsString() || error->value.GetStringLength() == 0,
      "filter answered an error: " + text.substr(0, 200));
  const auto failed = doc.FindMember("FailedNodes");
  expect(failed == doc.MemberEnd() || !failed->value.IsObject() || failed->value.MemberCount() == 0,
         "filter failed some nodes: " + text.substr(0, 200));
}

// One case: setup (not counted), then call(i) for i = 0 (warm-up, not
// counted) and 1..calls (counted).
struct Case {
  std::function<std::function<void(int)>()> prepare;
};

std::map<std::string, Case> cases() {
  std::map<std::string, Case> out;
  out["webhook-gpu"] = {[] {
    auto webhook =
        std::make_shared<bench::ProductionWebhook>(HAMI_BENCH_PLUGIN_DIR, HAMI_BENCH_SOURCE_DIR);
    auto body = std::make_shared<std::string>(bench::read_file(
        std::string(HAMI_BENCH_SOURCE_DIR) + "/tests/admission/data/admission-gpu.json"));
    return std::function<void(int)>([webhook, body](int) {
      const auto reply = webhook->service().handle("application/json", *body);
      expect(reply.status == 200 && reply.body.find("\"patch\"") != std::string::npos,
             "the review was not patched");
    });
  }};
  for (const bool full : {false, true}) {
    out[full ? "filter-nodes-1000" : "filter-names-1000"] = {[full] {
      auto world = std::make_shared<World>();
      auto body = std::make_shared<std::string>(filter_body(full));
      return std::function<void(int)>(
          [world, body](int) { expect_fit(world->extender->filter(*body)); });
    }};
  }
  out["bind"] = {[] {
    auto world = std::make_shared<World>();
    return std::function<void(int)>([world](int i) {
      expect(i < kBindPods, "at most " + std::to_string(kBindPods - 1) + " bind calls");
      const std::string pod = "bind-" + std::to_string(i);
      const std::string body = R"({"PodName":")" + pod + R"(","PodNamespace":"ml","PodUID":"uid-)" +
                               pod + R"(","Node":")" + bench::gpu_node_name(i) + R"("})";
      const auto reply = world->extender->bind(body);
      expect(reply.status == 200 && reply.body.find("\"Error\":\"\"") != std::string::npos,
             "bind failed: " + reply.body);
    });
  }};
  out["explain-1000"] = {[] {
    auto world = std::make_shared<World>();
    rapidjson::Document doc;
    const std::string text = bench::pending_pod_json("ask", 1, 24000, 30);
    doc.Parse(text.c_str(), text.size());
    auto pod = std::make_shared<k8s::PodModel>(doc);
    return std::function<void(int)>([world, pod](int) {
      const std::string json = scheduling::explanation_json(world->scheduler->explain(*pod));
      expect(json.size() > 1000, "explain answered " + std::to_string(json.size()) + " bytes");
    });
  }};
  return out;
}

int usage(const std::map<std::string, Case>& all) {
  std::cerr << "usage: hot_paths CASE CALLS\ncases:";
  for (const auto& [name, _] : all)
    std::cerr << " " << name;
  std::cerr << "\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  const auto all = cases();
  if (argc != 3)
    return usage(all);
  const auto it = all.find(argv[1]);
  const int calls = std::atoi(argv[2]);
  if (it == all.end() || calls < 1)
    return usage(all);
  try {
    const auto call = it->second.prepare();
    call(0);
    const auto start = std::chrono::steady_clock::now();
    CALLGRIND_TOGGLE_COLLECT;
    for (int i = 1; i <= calls; ++i)
      call(i);
    CALLGRIND_TOGGLE_COLLECT;
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now() - start)
                        .count();
    std::cout << it->first << " " << calls << " " << ns / calls << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "hot_paths " << it->first << ": " << e.what() << "\n";
    return 1;
  }
}
