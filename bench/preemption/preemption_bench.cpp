// The preempt verb for one pending pod over N candidate nodes of 8 GPUs of
// 40960 MiB each, every GPU nearly full: three running pods of 8000, 12000
// or 16000 MiB (priority 0, 50 or 1000, started on one of three days), so
// each node needs one or two pods evicted for the pending pod (priority
// 100, one GPU of 24000 MiB). kube-scheduler proposes one pod holding no
// device per node, as its GPU-blind dry run would.
//
//   BM_Preempt/<nodes>       Scheduler::preempt on decoded candidates
//   BM_PreemptRoute/<nodes>  the ExtenderPreemptionArgs body (meta form) in,
//                            the ExtenderPreemptionResult body out
//
// Counters: nodes_kept, inexact (nodes answered by the reprieve alone).
#include <benchmark/benchmark.h>
#include <rapidjson/document.h>

#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cluster/file_cluster.hpp"
#include "extender/preemption_args.hpp"
#include "extender/preemption_route.hpp"
#include "nvidia_plugins.hpp"
#include "scheduling/scheduler.hpp"
#include "synthetic_cluster.hpp"

namespace {

using namespace hami;

std::string running(int i, int node, int gpu, int memory, int priority, int day) {
  const std::string name = bench::gpu_node_name(node);
  return R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"run-)" + std::to_string(i) +
         R"(","namespace":"ml","uid":"pod-uid-)" + std::to_string(i) +
         R"(","annotations":{"hami.io/vgpu-node":")" + name +
         R"(","hami.io/bind-phase":"success","hami.io/vgpu-devices-allocated":")" +
         bench::gpu_id(node, gpu) + ",NVIDIA," + std::to_string(memory) +
         R"(,0:;"}},"spec":{"nodeName":")" + name + R"(","priority":)" + std::to_string(priority) +
         R"(,"schedulerName":"hami-scheduler","containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":"1"}}}]},)"
         R"("status":{"phase":"Running","startTime":"2025-01-0)" +
         std::to_string(day) + R"(T00:00:00Z"}})";
}

struct World {
  bench::NvidiaPlugins plugins{HAMI_BENCH_PLUGIN_DIR};
  std::unique_ptr<cluster::FileClusterState> cluster;
  std::unique_ptr<scheduling::Scheduler> scheduler;
  std::unique_ptr<k8s::PodModel> pod;
  std::vector<scheduling::PreemptionCandidate> candidates;
  std::string body;

  explicit World(int nodes) {
    std::string list = R"({"kind":"List","items":[)";
    std::mt19937 rng(7);
    const int sizes[] = {8000, 12000, 16000};
    const int priorities[] = {0, 0, 50, 1000};
    int pods = 0;
    for (int n = 0; n < nodes; ++n) {
      list += (n > 0 ? "," : "") + bench::gpu_node_json(n);
      for (int g = 0; g < bench::kGpusPerNode; ++g) {
        int used = 0;
        for (int k = 0; k < 3; ++k) {
          const int mem = sizes[rng() % 3];
          if (used + mem > 40960)
            continue;
          used += mem;
          list += "," + running(pods++, n, g, mem, priorities[rng() % 4],
                                1 + static_cast<int>(rng() % 3));
        }
      }
      // kube-scheduler's victim: holds no device.
      list += R"(,{"kind":"Pod","apiVersion":"v1","metadata":{"name":"hog-)" + std::to_string(n) +
              R"(","namespace":"ml","uid":"hog-)" + std::to_string(n) +
              R"("},"spec":{"nodeName":")" + bench::gpu_node_name(n) +
              R"(","priority":10,"containers":[{"name":"c"}]},"status":{"phase":"Running"}})";
    }
    list += "]}";
    cluster = cluster::FileClusterState::from_text(list, "bench");
    scheduling::SchedulerOptions options;
    options.clock = [] { return int64_t{1'750'000'000}; };
    scheduler = std::make_unique<scheduling::Scheduler>(
        *cluster, plugins.registry.devices(), plugins.registry.scheduling(), std::move(options));
    const std::string pending =
        R"({"metadata":{"name":"ask","namespace":"ml","uid":"uid-ask"},"spec":{"priority":100,)"
        R"("containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":"1",)"
        R"("nvidia.com/gpumem":"24000"}}}]}})";
    rapidjson::Document doc;
    doc.Parse(pending.c_str());
    pod = std::make_unique<k8s::PodModel>(doc);
    body = R"({"Pod":)" + pending + R"(,"NodeNameToVictims":null,"NodeNameToMetaVictims":{)";
    for (int n = 0; n < nodes; ++n) {
      const std::string name = bench::gpu_node_name(n);
      candidates.push_back({name, {{"hog-" + std::to_string(n), std::nullopt}}, 0});
      body += (n > 0 ? "," : "") + ("\"" + name + "\":{\"Pods\":[{\"UID\":\"hog-") +
              std::to_string(n) + "\"}],\"NumPDBViolations\":0}";
    }
    body += "}}";
  }
  ~World() { scheduler.reset(); }
};

World& world(int nodes) {
  static std::map<int, std::unique_ptr<World>> worlds;
  auto& w = worlds[nodes];
  if (!w)
    w = std::make_unique<World>(nodes);
  return *w;
}

void BM_Preempt(benchmark::State& state) {
  World& w = world(static_cast<int>(state.range(0)));
  size_t kept = 0;
  size_t inexact = 0;
  for (auto _ : state) {
    const auto outcome = w.scheduler->preempt(*w.pod, w.candidates);
    kept = outcome.nodes.size();
    inexact = outcome.inexact;
    benchmark::DoNotOptimize(outcome.nodes.data());
  }
  state.counters["nodes_kept"] = static_cast<double>(kept);
  state.counters["inexact"] = static_cast<double>(inexact);
}

void BM_PreemptRoute(benchmark::State& state) {
  World& w = world(static_cast<int>(state.range(0)));
  size_t bytes = 0;
  for (auto _ : state) {
    const auto reply = extender::preemption_reply(*w.scheduler, w.body);
    bytes = reply.body.size();
    benchmark::DoNotOptimize(reply.body.data());
  }
  state.counters["reply_bytes"] = static_cast<double>(bytes);
}

BENCHMARK(BM_Preempt)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PreemptRoute)->Arg(1000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
