// Scheduler::explain of one pod over N nodes of 8 GPUs each, with 2.5 running
// GPU pods per node in the usage ledger (a file-backend snapshot in memory).
//
//   BM_Explain/<nodes>       the explanation (every node, every device)
//   BM_ExplainJson/<nodes>   the same and its JSON
//
// Counters: nodes_fit (fitting nodes), json_bytes.
#include <benchmark/benchmark.h>
#include <rapidjson/document.h>

#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cluster/file_cluster.hpp"
#include "nvidia_plugins.hpp"
#include "plugins/host_services.hpp"
#include "plugins/plugin_registry.hpp"
#include "scheduling/explain.hpp"
#include "scheduling/scheduler.hpp"
#include "synthetic_cluster.hpp"

namespace {

using namespace hami;

struct World {
  bench::NvidiaPlugins plugins{HAMI_BENCH_PLUGIN_DIR};
  std::unique_ptr<cluster::FileClusterState> cluster;
  std::unique_ptr<scheduling::Scheduler> scheduler;
  std::unique_ptr<k8s::PodModel> pod;

  explicit World(int nodes) {
    std::string list = R"({"kind":"List","items":[)";
    for (int n = 0; n < nodes; ++n)
      list += (n > 0 ? "," : "") + bench::gpu_node_json(n);
    std::mt19937 rng(7);
    const int running = nodes * 5 / 2;
    for (int i = 0; i < running; ++i) {
      const int g = static_cast<int>(rng() % bench::kGpusPerNode);
      const int mem = 4000 + static_cast<int>(rng() % 8) * 4000;
      const int cores = static_cast<int>(rng() % 5) * 10;
      list += "," + bench::running_pod_json(i, i % nodes, g, mem, cores);
    }
    list += "]}";
    cluster = cluster::FileClusterState::from_text(list, "bench");
    scheduling::SchedulerOptions options;
    options.clock = [] { return int64_t{1'750'000'000}; };
    scheduler = std::make_unique<scheduling::Scheduler>(
        *cluster, plugins.registry.devices(), plugins.registry.scheduling(), std::move(options));
    rapidjson::Document doc;
    doc.Parse(
        R"({"metadata":{"name":"ask","namespace":"ml","uid":"uid-ask"},"spec":{"containers":[)"
        R"({"name":"c","resources":{"limits":{"nvidia.com/gpu":"1","nvidia.com/gpumem":"24000",)"
        R"("nvidia.com/gpucores":"30"}}}]}})");
    pod = std::make_unique<k8s::PodModel>(doc);
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

void BM_Explain(benchmark::State& state) {
  World& w = world(static_cast<int>(state.range(0)));
  size_t fit = 0;
  for (auto _ : state) {
    const auto e = w.scheduler->explain(*w.pod);
    fit = 0;
    for (const auto& n : e.nodes)
      fit += n.fits ? 1 : 0;
    benchmark::DoNotOptimize(e.summary.data());
  }
  state.counters["nodes_fit"] = static_cast<double>(fit);
}

void BM_ExplainJson(benchmark::State& state) {
  World& w = world(static_cast<int>(state.range(0)));
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string json = scheduling::explanation_json(w.scheduler->explain(*w.pod));
    bytes = json.size();
    benchmark::DoNotOptimize(json.data());
  }
  state.counters["json_bytes"] = static_cast<double>(bytes);
}

BENCHMARK(BM_Explain)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ExplainJson)->Arg(1000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
