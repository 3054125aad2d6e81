// simulate at scale: 10,000 workload pods onto 1,000 nodes × 8 NVIDIA GPUs
// (A100 40 GiB, 10 slots each), one policy pair (binpack/spread), on one
// core (filter on the calling thread only, as simulate always runs).
//
// The workload: 6,000 replicas of 1 GPU / 4000 MiB / 10 %, 3,000 of
// 1 GPU / 16000 MiB / 30 %, 1,000 of 2 GPUs / 20000 MiB / 50 % — all of it
// fits. Reported: the run's time, placements per second, the process's
// peak RSS (getrusage ru_maxrss) and the placed count. One iteration: a
// run is ten seconds of work, and its placements are the figure.
//
//   build/bench-…/bench/simulate/simulate_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "ops/ops_context.hpp"
#include "ops/simulate_run.hpp"
#include "ops/workload_parser.hpp"

namespace {

using namespace hami;

constexpr int kNodes = 1000;
constexpr int kGpusPerNode = 8;

std::string gpu_id(int node, int gpu) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "GPU-%08x-0000-4000-8000-%012x", node, gpu);
  return buf;
}

std::string cluster_json() {
  std::string out = R"({"apiVersion":"v1","kind":"List","items":[)";
  for (int n = 0; n < kNodes; ++n) {
    std::string reg = "[";
    for (int g = 0; g < kGpusPerNode; ++g) {
      reg += (g > 0 ? "," : "");
      reg +=
          R"({\"id\":\")" + gpu_id(n, g) + R"(\",\"index\":)" + std::to_string(g) +
          R"(,\"count\":10,\"devmem\":40960,\"devcore\":100,\"type\":\"NVIDIA A100-SXM4-40GB\",\"numa\":)" +
          std::to_string(g / 4) + R"(,\"mode\":\"hami-core\",\"health\":true})";
    }
    reg += "]";
    out += (n > 0 ? ",\n" : "\n");
    out += R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"gpu-node-)" + std::to_string(n) +
           R"(","annotations":{"hami.io/node-nvidia-register":")" + reg +
           R"("}},"status":{"allocatable":{"nvidia.com/gpu":"80"}}})";
  }
  return out + "\n]}\n";
}

std::string deployment(const std::string& name, int replicas, int gpus, int memory, int cores) {
  return "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " + name +
         ", namespace: bench}\nspec:\n  replicas: " + std::to_string(replicas) +
         "\n  template:\n    spec:\n      containers:\n      - name: c\n        resources: "
         "{limits: {nvidia.com/gpu: " +
         std::to_string(gpus) + ", nvidia.com/gpumem: " + std::to_string(memory) +
         ", nvidia.com/gpucores: " + std::to_string(cores) + "}}\n";
}

void BM_Simulate(benchmark::State& state) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("hami-simulate-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "cluster.json") << cluster_json();
  std::ofstream(dir / "config.yaml")
      << "tls: {selfSigned: true}\nplugins:\n  directory: " << HAMI_BENCH_PLUGIN_DIR
      << "\n  deviceConfigFile: " << HAMI_SOURCE_DIR << "/config/device-config.yaml"
      << "\n  devices: [{name: nvidia, library: nvidia.so}]\n"
         "  admission: {name: vgpu, library: vgpu.so}\n"
         "  scheduling: [{name: hami-policies, library: hami-policies.so}]\n"
         "cluster: {source: file, file: "
      << (dir / "cluster.json").string() << "}\n";
  const std::string workload = deployment("small", 6000, 1, 4000, 10) +
                               deployment("medium", 3000, 1, 16000, 30) +
                               deployment("pair", 1000, 2, 20000, 50);

  const log::Logger logger(log::Level::error);
  ops::OpsOptions options;
  options.config = dir / "config.yaml";
  const auto ctx = ops::OpsContext::open(options, logger);
  const auto pods = ops::parse_workload(workload, "bench");
  ops::SimulateOptions simulate;
  simulate.pairs = {{"binpack", "spread"}};
  size_t placed = 0;
  double seconds = 0;
  for (auto _ : state) {
    const auto started = std::chrono::steady_clock::now();
    const auto result = ops::simulate(*ctx, pods, simulate);
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    placed = result.pairs.front().placed;
    benchmark::DoNotOptimize(placed);
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  state.counters["pods"] = static_cast<double>(pods.size());
  state.counters["placed"] = static_cast<double>(placed);
  state.counters["seconds"] = seconds;
  state.counters["placements_per_s"] = seconds > 0 ? static_cast<double>(placed) / seconds : 0;
  state.counters["peak_rss_MB"] = static_cast<double>(usage.ru_maxrss) / 1024.0;
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_Simulate)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
