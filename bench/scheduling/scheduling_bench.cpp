// Filter with a 2-GPU request over N candidate nodes of 8 GPUs each, with
// 20,000 running GPU pods in the usage ledger (NodeNames mode, bind mode:
// every fitting node is returned, as kube-scheduler then prioritizes).
//
//   BM_Filter/<nodes>            Scheduler::filter (the core)
//   BM_FilterRoute/<nodes>       ExtenderService::filter: JSON body in, JSON out
//
// HAMI_BENCH_FILTER_WORKERS=<n> sets the filter helper threads (default: one
// per extra CPU, at most 3); BENCH_BUILD locates the shared bodies.
//
// Counters: ledger_bytes (the ledger's own estimate of its heap use),
// rss_delta_bytes (process RSS growth while the ledger was built: devices
// of every node plus 20,000 pod charges), fit_nodes.
#include <benchmark/benchmark.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cluster/file_cluster.hpp"
#include "extender/extender_codec.hpp"
#include "extender/extender_service.hpp"
#include "nvidia_plugins.hpp"
#include "plugins/host_services.hpp"
#include "plugins/plugin_registry.hpp"
#include "scheduling/scheduler.hpp"
#include "synthetic_cluster.hpp"

namespace {

using namespace hami;

constexpr int kRunningPods = 20000;
constexpr int64_t kGpuMemory = 40960;

long rss_bytes() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * 4096;
}

// A ClusterState that holds the nodes and streams the running pods into the
// watcher once (as a list+watch would), without keeping them: the RSS
// measured around watch() is then the ledger's.
class StreamingCluster final : public cluster::ClusterState {
 public:
  explicit StreamingCluster(int nodes) : node_count_(nodes) {
    for (int n = 0; n < nodes; ++n) {
      rapidjson::Document doc;
      const std::string json = bench::gpu_node_json(n);
      doc.Parse(json.c_str());
      auto model = std::make_shared<const k8s::NodeModel>(doc);
      nodes_.emplace(std::string(model->name()), std::move(model));
    }
  }

  std::shared_ptr<const k8s::NodeModel> node(std::string_view name) const override {
    const auto it = nodes_.find(std::string(name));
    return it == nodes_.end() ? nullptr : it->second;
  }
  std::vector<std::shared_ptr<const k8s::NodeModel>> nodes() const override {
    std::vector<std::shared_ptr<const k8s::NodeModel>> out;
    for (const auto& [_, n] : nodes_)
      out.push_back(n);
    return out;
  }
  std::shared_ptr<const cluster::PodRecord> pod(std::string_view, std::string_view) const override {
    return nullptr;
  }
  std::vector<std::shared_ptr<const cluster::PodRecord>> pods() const override { return {}; }
  std::vector<cluster::ResourceQuotaRecord> quotas() const override { return {}; }
  std::vector<cluster::NamespaceRecord> namespaces() const override { return {}; }

  void watch(cluster::ClusterWatcher& w) override {
    for (const auto& [_, n] : nodes_)
      w.node_upserted(n);
    std::mt19937 rng(7);
    for (int i = 0; i < kRunningPods; ++i) {
      const int n = i % node_count_;
      const int g = static_cast<int>(rng() % bench::kGpusPerNode);
      const int mem = 1000 + static_cast<int>(rng() % 4) * 500;
      const int cores = static_cast<int>(rng() % 3) * 5;
      const std::string uid = "pod-uid-" + std::to_string(i);
      const std::string json = bench::running_pod_json(i, n, g, mem, cores);
      rapidjson::Document doc;
      doc.Parse(json.c_str());
      auto record = std::make_shared<cluster::PodRecord>();
      record->model = std::make_shared<const k8s::PodModel>(doc);
      record->namespace_ = "ml";
      record->name = "run-" + std::to_string(i);
      record->uid = uid;
      record->phase = "Running";
      w.pod_upserted(record);
    }
    w.quotas_changed();
  }
  void unwatch(cluster::ClusterWatcher&) override {}
  void patch_pod_metadata(std::string_view, std::string_view, const cluster::PodMetadataPatch&,
                          std::optional<std::string_view>) override {}
  void patch_node_annotations(std::string_view, const std::vector<cluster::MetadataWrite>&,
                              std::optional<std::string_view>) override {}
  void bind(std::string_view, std::string_view, std::string_view, std::string_view) override {}
  void record_event(const cluster::Event&) override {}

 private:
  int node_count_;
  std::map<std::string, std::shared_ptr<const k8s::NodeModel>> nodes_;
};

struct Setup {
  bench::NvidiaPlugins plugins{HAMI_BENCH_PLUGIN_DIR};
  std::unique_ptr<StreamingCluster> cluster;
  std::unique_ptr<scheduling::Scheduler> scheduler;
  std::vector<std::string> names;
  long rss_delta = 0;
  size_t ledger_bytes = 0;

  explicit Setup(int nodes) {
    cluster = std::make_unique<StreamingCluster>(nodes);
    for (int n = 0; n < nodes; ++n)
      names.push_back(bench::gpu_node_name(n));
    const long before = rss_bytes();
    scheduling::SchedulerOptions options;
    options.initial_health_check = false;
    options.clock = [] { return int64_t{1'750'000'000}; };
    // HAMI_BENCH_FILTER_WORKERS=0 measures the walk on the calling thread alone.
    if (const char* workers = std::getenv("HAMI_BENCH_FILTER_WORKERS")) {
      options.filter_workers = static_cast<size_t>(std::strtoul(workers, nullptr, 10));
    }
    scheduler = std::make_unique<scheduling::Scheduler>(*cluster, plugins.registry.devices(),
                                                        plugins.registry.scheduling(), options);
    rss_delta = rss_bytes() - before;
    ledger_bytes = scheduler->ledger().read()->approximate_bytes();
  }
};

const char* kPod =
    R"({"metadata":{"name":"bench-pod","namespace":"ml","uid":"bench-uid"},"spec":{"schedulerName":"hami-scheduler","containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":"2","nvidia.com/gpumem":"4000","nvidia.com/gpucores":"20"}}}]}})";

Setup& setup_for(int nodes) {
  static std::map<int, std::unique_ptr<Setup>> setups;  // one per size, reused across runs
  auto& s = setups[nodes];
  if (!s)
    s = std::make_unique<Setup>(nodes);
  return *s;
}

void BM_Filter(benchmark::State& state) {
  Setup& s = setup_for(static_cast<int>(state.range(0)));
  rapidjson::Document doc;
  doc.Parse(kPod);
  const k8s::PodModel pod(doc);
  size_t fit = 0;
  for (auto _ : state) {
    const auto out = s.scheduler->filter(pod, s.names);
    fit = out.fit.size();
    benchmark::DoNotOptimize(fit);
  }
  state.counters["fit_nodes"] = static_cast<double>(fit);
  state.counters["ledger_bytes"] = static_cast<double>(s.ledger_bytes);
  state.counters["rss_delta_bytes"] = static_cast<double>(s.rss_delta);
  state.counters["pods"] = static_cast<double>(s.scheduler->ledger().read()->pod_count());
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_Filter)
    ->Arg(100)
    ->Arg(250)
    ->Arg(500)
    ->Arg(1000)
    ->Arg(2000)
    ->Arg(5000)
    ->Unit(benchmark::kMicrosecond)
    ->Complexity(benchmark::oN);

void BM_FilterRoute(benchmark::State& state) {
  Setup& s = setup_for(static_cast<int>(state.range(0)));
  std::string body = std::string(R"({"Pod":)") + kPod + R"(,"Nodes":null,"NodeNames":[)";
  for (size_t i = 0; i < s.names.size(); ++i)
    body += (i ? ",\"" : "\"") + s.names[i] + "\"";
  body += "]}";
  const extender::ExtenderService service(*s.scheduler);
  size_t bytes = 0;
  for (auto _ : state) {
    const auto reply = service.filter(body);
    bytes = reply.body.size();
    benchmark::DoNotOptimize(bytes);
  }
  state.counters["request_bytes"] = static_cast<double>(body.size());
  state.counters["reply_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_FilterRoute)->Arg(1000)->Arg(5000)->Unit(benchmark::kMicrosecond);

// The shared benchmark bodies (../shared/bench/data/gen_data.py, written by
// its setup.sh to $BENCH_BUILD/data, default /tmp/hami-bench/data): 1,000
// full Node objects (5.4 MB) or their names. The nodes are also loaded into
// the file backend, as the NodeNames case needs them cached.
struct BodySetup {
  bench::NvidiaPlugins plugins{HAMI_BENCH_PLUGIN_DIR};
  std::unique_ptr<cluster::FileClusterState> cluster;
  std::unique_ptr<scheduling::Scheduler> scheduler;
  std::string full;
  std::string names;
  bool ok = false;

  BodySetup() {
    const char* env = std::getenv("BENCH_BUILD");
    const std::string dir = std::string(env != nullptr ? env : "/tmp/hami-bench") + "/data/";
    full = read(dir + "extender-1000.json");
    names = read(dir + "extender-1000-names.json");
    if (full.empty() || names.empty())
      return;
    rapidjson::Document doc;
    doc.Parse(full.c_str());
    rapidjson::Document list(rapidjson::kObjectType);
    list.AddMember("kind", "NodeList", list.GetAllocator());
    list.AddMember("items", rapidjson::Value(doc["Nodes"]["items"], list.GetAllocator()),
                   list.GetAllocator());
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    list.Accept(writer);
    cluster = cluster::FileClusterState::from_text(buffer.GetString(), "extender-1000.json");
    scheduling::SchedulerOptions options;
    options.initial_health_check = false;
    scheduler = std::make_unique<scheduling::Scheduler>(*cluster, plugins.registry.devices(),
                                                        plugins.registry.scheduling(), options);
    ok = true;
  }

  static std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
};

BodySetup& body_setup() {
  static BodySetup setup;
  return setup;
}

void run_body(benchmark::State& state, bool full) {
  BodySetup& s = body_setup();
  if (!s.ok) {
    state.SkipWithError("no benchmark bodies: run ../shared/bench/setup.sh (or set BENCH_BUILD)");
    return;
  }
  const extender::ExtenderService service(*s.scheduler);
  const std::string& body = full ? s.full : s.names;
  size_t reply = 0;
  for (auto _ : state) {
    reply = service.filter(body).body.size();
    benchmark::DoNotOptimize(reply);
  }
  state.counters["request_bytes"] = static_cast<double>(body.size());
  state.counters["reply_bytes"] = static_cast<double>(reply);
}

void BM_SharedBodyNodeNames(benchmark::State& state) {
  run_body(state, false);
}
void BM_SharedBodyFullNodes(benchmark::State& state) {
  run_body(state, true);
}
BENCHMARK(BM_SharedBodyNodeNames)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SharedBodyFullNodes)->Unit(benchmark::kMicrosecond);

// Decoding the 5.4 MB full-Nodes body alone, keeping what the node models
// read (the filter route's decode). The body copy each decode takes is
// made outside the timing.
void BM_DecodeFullNodes(benchmark::State& state) {
  BodySetup& s = body_setup();
  if (!s.ok) {
    state.SkipWithError("no benchmark bodies: run ../shared/bench/setup.sh (or set BENCH_BUILD)");
    return;
  }
  size_t nodes = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::string body = s.full;
    state.ResumeTiming();
    const extender::ExtenderArgs args(std::move(body), extender::NodeFields::model);
    nodes = args.node_items.size();
    benchmark::DoNotOptimize(nodes);
  }
  state.counters["nodes"] = static_cast<double>(nodes);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(s.full.size()));
}
BENCHMARK(BM_DecodeFullNodes)->Unit(benchmark::kMicrosecond);

// The same decode with a node cache holding every node of the body (what a
// call finds after the first one when the nodes have not changed): each
// item is compared with its cached text instead of being parsed.
void BM_DecodeFullNodesCached(benchmark::State& state) {
  BodySetup& s = body_setup();
  if (!s.ok) {
    state.SkipWithError("no benchmark bodies: run ../shared/bench/setup.sh (or set BENCH_BUILD)");
    return;
  }
  extender::NodeObjectCache cache(extender::ExtenderService::kDefaultNodeCacheBytes);
  {
    const extender::ExtenderArgs first(s.full, extender::NodeFields::model, &cache);
    std::vector<extender::NodeObjectCache::Fresh> fresh;
    for (size_t i = 0; i < first.node_items.size(); ++i)
      fresh.push_back({first.node_texts[i], k8s::NodeModel(*first.node_items[i])});
    cache.remember(std::move(fresh));
  }
  size_t known = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::string body = s.full;
    state.ResumeTiming();
    const extender::ExtenderArgs args(std::move(body), extender::NodeFields::model, &cache);
    known = static_cast<size_t>(std::count_if(args.known_nodes.begin(), args.known_nodes.end(),
                                              [](const auto* e) { return e != nullptr; }));
    benchmark::DoNotOptimize(known);
  }
  state.counters["cached_nodes"] = static_cast<double>(known);
  state.counters["cache_bytes"] = static_cast<double>(cache.snapshot()->bytes());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(s.full.size()));
}
BENCHMARK(BM_DecodeFullNodesCached)->Unit(benchmark::kMicrosecond);

// A call that meets a few changed nodes while the cache holds many: the
// next snapshot is built from the current one (the cost such a call adds,
// besides parsing the changed nodes). Five of state.range(0) nodes change.
void BM_RememberChangedNodes(benchmark::State& state) {
  const auto cached = static_cast<size_t>(state.range(0));
  const auto text_of = [](size_t node, size_t version) {
    return R"({"metadata":{"name":"node-)" + std::to_string(node) +
           R"(","uid":"u","annotations":{"pad":")" + std::string(300, 'p') + R"(","v":")" +
           std::to_string(version) + R"("}}})";
  };
  const auto fresh_of = [](const std::string& text) {
    rapidjson::Document doc;
    doc.Parse(text.c_str(), text.size());
    return extender::NodeObjectCache::Fresh{text, k8s::NodeModel(doc)};
  };
  extender::NodeObjectCache cache(std::size_t{1} << 30);
  {
    // The cache reads the texts during remember() only; they live until then.
    std::vector<std::string> texts;
    std::vector<extender::NodeObjectCache::Fresh> all;
    texts.reserve(cached);
    for (size_t n = 0; n < cached; ++n)
      all.push_back(fresh_of(texts.emplace_back(text_of(n, 0))));
    cache.remember(std::move(all));
  }
  size_t version = 0;
  for (auto _ : state) {
    state.PauseTiming();
    ++version;
    std::vector<std::string> texts;
    std::vector<extender::NodeObjectCache::Fresh> changed;
    texts.reserve(5);
    for (size_t n = 0; n < 5; ++n)
      changed.push_back(fresh_of(texts.emplace_back(text_of((version * 5 + n) % cached, version))));
    state.ResumeTiming();
    cache.remember(std::move(changed));
  }
  state.counters["cached_nodes"] = static_cast<double>(cache.snapshot()->size());
}
BENCHMARK(BM_RememberChangedNodes)->Arg(1000)->Arg(5000)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
