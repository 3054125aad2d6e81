// Does a scrape slow the request path down?
//
//   BM_RecordRequest/scrape:{0,1}     RouteRecorder::observe (a counter and
//                                     a latency histogram), the per-request
//                                     cost on the extender's routes
//   BM_RecordRequestLookup/scrape:{0,1}  RequestMetrics::observe, resolving
//                                     the route's series by name first
//   BM_Filter/scrape:{0,1}            Scheduler::filter of a 1-GPU pod over
//                                     100 nodes × 8 GPUs with 2,000 running
//                                     pods in the usage ledger
//   BM_ScrapeFixed, BM_ScrapeLedger   one full scrape (its own cost)
//
// scrape:0 nothing else runs; scrape:1 another thread scrapes an identical
// registry of its own back to back (CPU competition only); scrape:2 it
// scrapes the very registry (and ledger) being recorded into. The HAMi
// collector covers 500 nodes × 8 GPUs and 4,000 pods (record benchmarks)
// or the live ledger (filter). `scrapes` counts the scrapes completed
// during the timed run. scrape:2 against scrape:1 is the cost of sharing
// state with a scrape; a recorder blocked behind a scrape would show there.
#include <benchmark/benchmark.h>
#include <rapidjson/document.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cluster/file_cluster.hpp"
#include "observability/hami_collector.hpp"
#include "observability/ledger_usage_source.hpp"
#include "observability/metrics_registry.hpp"
#include "observability/request_metrics.hpp"
#include "plugins/host_services.hpp"
#include "plugins/plugin_registry.hpp"
#include "scheduling/scheduler.hpp"

namespace {

using namespace hami;
using namespace hami::observability;

class FixedSource final : public ClusterUsageSource {
 public:
  FixedSource(int nodes, int pods) {
    for (int n = 0; n < nodes; ++n) {
      NodeUsage node;
      node.name = "gpu-node-" + std::to_string(n);
      for (int g = 0; g < 8; ++g) {
        DeviceUsage d;
        d.uuid = "GPU-" + std::to_string(n) + "-" + std::to_string(g);
        d.index = static_cast<uint32_t>(g);
        d.type = "NVIDIA A100-SXM4-40GB";
        d.memory_total_mib = 40960;
        d.cores_total = 100;
        d.slots_used = 1;
        d.memory_used_mib = 4000;
        d.cores_used = 25;
        node.devices.push_back(std::move(d));
      }
      usage_.nodes.push_back(std::move(node));
    }
    for (int p = 0; p < pods; ++p) {
      const int n = p % nodes;
      usage_.pods.push_back(
          {"ns-" + std::to_string(p % 20),
           "pod-" + std::to_string(p),
           "gpu-node-" + std::to_string(n),
           {{0, "GPU-" + std::to_string(n) + "-" + std::to_string(p % 8), 4000, 25}}});
    }
  }
  ClusterUsage usage() const override { return usage_; }

 private:
  ClusterUsage usage_;
};

// Scrapes `registry` back to back on its own thread until destroyed.
class BackgroundScraper {
 public:
  explicit BackgroundScraper(const MetricsRegistry& registry)
      : thread_([this, &registry] {
          while (!stop_.load(std::memory_order_relaxed)) {
            benchmark::DoNotOptimize(registry.scrape());
            count_.fetch_add(1, std::memory_order_relaxed);
          }
        }) {}
  ~BackgroundScraper() {
    stop_.store(true);
    thread_.join();
  }
  uint64_t count() const { return count_.load(); }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> count_{0};
  std::thread thread_;
};

// Arg 0: nothing else runs. Arg 1: another thread scrapes, back to back,
// an identical registry of its own — the same CPU competition, no shared
// state. Arg 2: that thread scrapes the registry being recorded into.
// 2 against 1 isolates what a scrape costs the recorder through shared
// state (locks, cache lines); 1 against 0 is the host's CPU sharing.
std::unique_ptr<BackgroundScraper> scraper_for(const benchmark::State& state,
                                               const MetricsRegistry& same,
                                               const MetricsRegistry& other) {
  switch (state.range(0)) {
    case 1:
      return std::make_unique<BackgroundScraper>(other);
    case 2:
      return std::make_unique<BackgroundScraper>(same);
    default:
      return nullptr;
  }
}

struct RecordFixture {
  MetricsRegistry registry;
  RequestMetrics requests{registry};
  RecordFixture() {
    add_hami_cluster_metrics(registry, std::make_shared<FixedSource>(500, 4000));
    for (const char* route : {"/filter", "/bind", "/prioritize", "/webhook"})
      requests.observe(route, "POST", 200, std::chrono::microseconds(100));
  }
};

RecordFixture& record_fixture() {
  static RecordFixture fixture;
  return fixture;
}

RecordFixture& other_record_fixture() {
  static RecordFixture fixture;
  return fixture;
}

void BM_RecordRequest(benchmark::State& state) {
  RecordFixture& f = record_fixture();
  RequestMetrics::RouteRecorder& route = f.requests.route("/filter", "POST");
  const auto scraper = scraper_for(state, f.registry, other_record_fixture().registry);
  const uint64_t before = scraper ? scraper->count() : 0;
  int64_t i = 0;
  for (auto _ : state) {
    route.observe(200, std::chrono::microseconds(50 + (i++ & 1023)));
  }
  state.counters["scrapes"] = static_cast<double>(scraper ? scraper->count() - before : 0);
}
BENCHMARK(BM_RecordRequest)->ArgName("scrape")->Arg(0)->Arg(1)->Arg(2)->UseRealTime()->MinTime(1.0);

void BM_RecordRequestLookup(benchmark::State& state) {
  RecordFixture& f = record_fixture();
  const auto scraper = scraper_for(state, f.registry, other_record_fixture().registry);
  const uint64_t before = scraper ? scraper->count() : 0;
  int64_t i = 0;
  for (auto _ : state) {
    f.requests.observe("/bind", "POST", 200, std::chrono::microseconds(50 + (i++ & 1023)));
  }
  state.counters["scrapes"] = static_cast<double>(scraper ? scraper->count() - before : 0);
}
BENCHMARK(BM_RecordRequestLookup)
    ->ArgName("scrape")
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime()
    ->MinTime(1.0);

void BM_ScrapeFixed(benchmark::State& state) {
  RecordFixture& f = record_fixture();
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string text = f.registry.scrape();
    bytes = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_ScrapeFixed)->Unit(benchmark::kMillisecond);

// --- filter over the real scheduler ------------------------------------

constexpr int kNodes = 100;
constexpr int kRunningPods = 2000;

std::string node_json(int n) {
  std::string reg = "[";
  for (int g = 0; g < 8; ++g) {
    if (g > 0)
      reg += ",";
    reg += R"({\"id\":\"GPU-)" + std::to_string(n) + "-" + std::to_string(g) + R"(\",\"index\":)" +
           std::to_string(g) +
           R"(,\"count\":10,\"devmem\":40960,\"devcore\":100,\"type\":\"NVIDIA A100-SXM4-40GB\",)" +
           R"(\"numa\":0,\"mode\":\"hami-core\",\"health\":true})";
  }
  reg += "]";
  return R"({"kind":"Node","metadata":{"name":"gpu-node-)" + std::to_string(n) +
         R"(","annotations":{"hami.io/node-handshake":"Requesting_2099-01-01 00:00:00",)" +
         R"("hami.io/node-nvidia-register":")" + reg +
         R"("}},"status":{"allocatable":{"nvidia.com/gpu":"80"},"capacity":{"nvidia.com/gpu":"80"}}})";
}

std::string pod_json(int p, bool running) {
  const std::string limits =
      R"({"nvidia.com/gpu":"1","nvidia.com/gpumem":"1000","nvidia.com/gpucores":"5"})";
  std::string annotations = "{}";
  if (running) {
    const int n = p % kNodes;
    const std::string node = "gpu-node-" + std::to_string(n);
    annotations = R"({"hami.io/vgpu-node":")" + node +
                  R"(","hami.io/vgpu-devices-allocated":"GPU-)" + std::to_string(n) + "-" +
                  std::to_string(p % 8) + R"(,NVIDIA,1000,5:;"})";
  }
  return R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"pod-)" + std::to_string(p) +
         R"(","namespace":"ml","uid":"uid-)" + std::to_string(p) + R"(","annotations":)" +
         annotations +
         R"(},"spec":{"schedulerName":"hami-scheduler","containers":[{"name":"c","resources":{"limits":)" +
         limits + R"(}}]},"status":{"phase":")" + (running ? "Running" : "Pending") + R"("}})";
}

struct FilterFixture {
  host::HostServices services{[](int32_t, std::string_view, std::string_view) {},
                              [] { return int64_t{1'750'000'000}; }};
  host::PluginRegistry plugins;
  std::unique_ptr<cluster::FileClusterState> cluster;
  std::unique_ptr<scheduling::Scheduler> scheduler;
  MetricsRegistry registry;
  std::unique_ptr<k8s::PodModel> pending;
  std::vector<std::string> candidates;

  FilterFixture() {
    plugins = host::PluginRegistry::load(
        {HAMI_BENCH_PLUGIN_DIR, true},
        {{"nvidia", "nvidia.so", HAMI_KIND_DEVICE, "{}"},
         {"amd", "amd.so", HAMI_KIND_DEVICE, "{}"},
         {"hami-policies", "hami-policies.so", HAMI_KIND_SCHEDULING, "{}"}},
        services);
    cluster = std::make_unique<cluster::FileClusterState>();
    const auto upsert = [&](const std::string& json) {
      rapidjson::Document doc;
      doc.Parse(json.c_str());
      cluster->upsert(doc);
    };
    for (int n = 0; n < kNodes; ++n) {
      upsert(node_json(n));
      candidates.push_back("gpu-node-" + std::to_string(n));
    }
    for (int p = 0; p < kRunningPods; ++p)
      upsert(pod_json(p, true));
    scheduling::SchedulerOptions options;
    options.clock = [] { return int64_t{1'750'000'000}; };
    options.initial_health_check = false;
    scheduler = std::make_unique<scheduling::Scheduler>(*cluster, plugins.devices(),
                                                        plugins.scheduling(), options);
    add_hami_cluster_metrics(
        registry, std::make_shared<LedgerUsageSource>(*scheduler, *cluster, plugins.devices()));
    rapidjson::Document doc;
    const std::string json = pod_json(kRunningPods, false);
    doc.Parse(json.c_str());
    pending = std::make_unique<k8s::PodModel>(doc);
  }
  ~FilterFixture() { scheduler.reset(); }
};

FilterFixture& filter_fixture() {
  static FilterFixture fixture;
  return fixture;
}

FilterFixture& other_filter_fixture() {
  static FilterFixture fixture;
  return fixture;
}

void BM_Filter(benchmark::State& state) {
  FilterFixture& f = filter_fixture();
  const auto scraper = scraper_for(state, f.registry, other_filter_fixture().registry);
  const uint64_t before = scraper ? scraper->count() : 0;
  size_t fit = 0;
  for (auto _ : state) {
    const auto outcome = f.scheduler->filter(*f.pending, f.candidates);
    fit = outcome.fit.size();
    benchmark::DoNotOptimize(fit);
  }
  state.counters["fit_nodes"] = static_cast<double>(fit);
  state.counters["scrapes"] = static_cast<double>(scraper ? scraper->count() - before : 0);
}
BENCHMARK(BM_Filter)
    ->ArgName("scrape")
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(2.0);

void BM_ScrapeLedger(benchmark::State& state) {
  FilterFixture& f = filter_fixture();
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string text = f.registry.scrape();
    bytes = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_ScrapeLedger)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
