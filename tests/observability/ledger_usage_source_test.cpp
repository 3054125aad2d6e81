// LedgerUsageSource over a real Scheduler (nvidia.so, amd.so and
// hami-policies.so from the build) and the file cluster: the per-device
// gauges move by exactly what a bind allocates and return when the pod is
// deleted; container_index is the container's real position; quotas and
// MIG instances come through.
#include "observability/ledger_usage_source.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <atomic>
#include <map>
#include <memory>
#include <thread>

#include "cluster/file_cluster.hpp"
#include "exposition_parser.hpp"
#include "observability/hami_collector.hpp"
#include "observability/host_metrics.hpp"
#include "plugins/host_services.hpp"
#include "plugins/plugin_registry.hpp"
#include "scheduling/scheduler.hpp"

namespace {

using namespace hami;
using namespace hami::observability;
using hami::testing::parse_exposition;
using hami::testing::ParsedExposition;

constexpr double kMiB = 1048576.0;

std::string nvidia_node(const std::string& name, int gpus, const std::string& mode = "hami-core") {
  std::string reg = "[";
  for (int i = 0; i < gpus; ++i) {
    if (i > 0)
      reg += ",";
    reg += R"({"id":"GPU-)" + name + "-" + std::to_string(i) + R"(","index":)" + std::to_string(i) +
           R"(,"count":10,"devmem":8000,"devcore":100,"type":"NVIDIA-A10",)" +
           R"("numa":0,"mode":")" + mode + R"(","health":true})";
  }
  reg += "]";
  return "- kind: Node\n  metadata:\n    name: " + name +
         "\n    annotations:\n      hami.io/node-nvidia-register: '" + reg +
         "'\n  status:\n    allocatable:\n      nvidia.com/gpu: \"" + std::to_string(gpus * 10) +
         "\"\n    capacity:\n      nvidia.com/gpu: \"" + std::to_string(gpus * 10) + "\"\n";
}

// Containers as JSON; each entry is the nvidia.com/* limits of one
// container ("" = no GPU).
std::string containers(const std::vector<std::string>& limits, const std::string& prefix) {
  std::string out = "[";
  for (size_t i = 0; i < limits.size(); ++i) {
    if (i > 0)
      out += ",";
    out += R"({"name":")" + prefix + std::to_string(i) + R"(","resources":{"limits":{)" +
           limits[i] + "}}}";
  }
  return out + "]";
}

std::string pod_json(const std::string& ns, const std::string& name, const std::string& uid,
                     const std::vector<std::string>& app, const std::vector<std::string>& init = {},
                     const std::string& annotations = "{}", const std::string& status = "") {
  std::string json = R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":")" + name +
                     R"(","namespace":")" + ns + R"(","uid":")" + uid + R"(","annotations":)" +
                     annotations + R"(},"spec":{"schedulerName":"hami-scheduler","containers":)" +
                     containers(app, "c");
  if (!init.empty())
    json += R"(,"initContainers":)" + containers(init, "init");
  json += "}," + (status.empty() ? std::string(R"("status":{"phase":"Pending"})") : status) + "}";
  return json;
}

const std::string kGpu3000 =
    R"("nvidia.com/gpu":"1","nvidia.com/gpumem":"3000","nvidia.com/gpucores":"30")";

struct Env {
  host::HostServices services{[](int32_t, std::string_view, std::string_view) {},
                              [] { return int64_t{1'750'000'000}; }};
  host::PluginRegistry registry;
  std::unique_ptr<cluster::FileClusterState> cluster;
  std::unique_ptr<scheduling::Scheduler> scheduler;
  MetricsRegistry metrics;

  explicit Env(const std::string& yaml) {
    host::LoaderOptions loader{HAMI_PLUGIN_DIR, true};
    registry = host::PluginRegistry::load(
        loader,
        {{"nvidia", "nvidia.so", HAMI_KIND_DEVICE, "{}"},
         {"amd", "amd.so", HAMI_KIND_DEVICE, "{}"},
         {"hami-policies", "hami-policies.so", HAMI_KIND_SCHEDULING, "{}"}},
        services);
    cluster = cluster::FileClusterState::from_text(yaml, "observability-test.yaml");
    scheduling::SchedulerOptions options;
    options.clock = [] { return int64_t{1'750'000'000}; };
    scheduler = std::make_unique<scheduling::Scheduler>(*cluster, registry.devices(),
                                                        registry.scheduling(), options);
    add_hami_cluster_metrics(
        metrics, std::make_shared<LedgerUsageSource>(*scheduler, *cluster, registry.devices()));
  }
  ~Env() { scheduler.reset(); }

  void add(const std::string& json) {
    rapidjson::Document doc;
    doc.Parse(json.c_str());
    ASSERT_FALSE(doc.HasParseError()) << json;
    cluster->upsert(doc);
  }
  ParsedExposition scrape() const { return parse_exposition(metrics.scrape()); }
};

// Every per-device value of `family`, keyed by device uuid.
std::map<std::string, double> by_device(const ParsedExposition& p, const std::string& family) {
  std::map<std::string, double> out;
  for (const auto* s : p.find(family))
    out[s->labels.at("device_uuid")] = s->value;
  return out;
}

TEST(LedgerUsage, DeviceGaugesFollowABindAndReturnAfterDeletion) {
  Env env("kind: List\nitems:\n" + nvidia_node("gpu-a", 2));
  env.add(pod_json("ml", "p", "uid-p", {kGpu3000}));
  const auto before = env.scrape();
  const auto mem_before = by_device(before, "hami_gpu_memory_allocated_bytes");
  ASSERT_EQ(mem_before.size(), 2u);
  for (const auto& [uuid, v] : mem_before)
    EXPECT_EQ(v, 0) << uuid;
  EXPECT_EQ(before.value("hami_gpu_memory_limit_bytes", {{"device_uuid", "GPU-gpu-a-0"}}),
            8000 * kMiB);
  EXPECT_EQ(before.family("hami_vgpu_memory_allocated_bytes"), nullptr);

  ASSERT_EQ(env.scheduler->bind("ml", "p", "uid-p", "gpu-a"), "");
  const std::string allocated =
      std::string(*env.cluster->pod("ml", "p")->annotation("hami.io/vgpu-devices-allocated"));
  const std::string uuid = allocated.substr(0, allocated.find(','));
  const std::string other = uuid == "GPU-gpu-a-0" ? "GPU-gpu-a-1" : "GPU-gpu-a-0";

  const auto after = env.scrape();
  const std::map<std::string, std::string> dev{{"device_uuid", uuid}};
  const std::map<std::string, std::string> idle{{"device_uuid", other}};
  EXPECT_EQ(after.value("hami_gpu_memory_allocated_bytes", dev), 3000 * kMiB);
  EXPECT_EQ(after.value("hami_node_gpu_overview", dev), 3000 * kMiB);
  EXPECT_EQ(after.value("hami_gpu_core_allocated_ratio", dev), 30);
  EXPECT_EQ(after.value("hami_gpu_shared_count", dev), 1);
  EXPECT_DOUBLE_EQ(after.value("hami_node_gpu_memory_allocated_ratio", dev), 3000.0 / 8000.0);
  EXPECT_EQ(after.value("hami_gpu_memory_allocated_bytes", idle), 0);
  EXPECT_EQ(after.value("hami_gpu_core_allocated_ratio", idle), 0);
  const std::map<std::string, std::string> container{
      {"namespace", "ml"},      {"pod", "p"},          {"node", "gpu-a"},
      {"container_index", "0"}, {"device_uuid", uuid}, {"zone", "vGPU"}};
  EXPECT_EQ(after.value("hami_vgpu_memory_allocated_bytes", container), 3000 * kMiB);
  EXPECT_EQ(after.value("hami_vgpu_core_allocated_ratio", container), 30);

  env.cluster->delete_pod("ml", "p");
  const auto gone = env.scrape();
  EXPECT_EQ(by_device(gone, "hami_gpu_memory_allocated_bytes"), mem_before);
  EXPECT_EQ(by_device(gone, "hami_gpu_core_allocated_ratio"),
            by_device(before, "hami_gpu_core_allocated_ratio"));
  EXPECT_EQ(by_device(gone, "hami_gpu_shared_count"), by_device(before, "hami_gpu_shared_count"));
  EXPECT_EQ(gone.family("hami_vgpu_memory_allocated_bytes"), nullptr);
}

TEST(LedgerUsage, ContainerIndexCountsInitContainersFirst) {
  Env env("kind: List\nitems:\n" + nvidia_node("gpu-a", 1));
  // init0 (no GPU), c0 (no GPU), c1 (GPU): the GPU container is index 2.
  env.add(pod_json("ml", "p", "uid-p", {"", kGpu3000}, {""}));
  ASSERT_EQ(env.scheduler->bind("ml", "p", "uid-p", "gpu-a"), "");
  EXPECT_EQ(std::string(*env.cluster->pod("ml", "p")->annotation("hami.io/vgpu-devices-allocated")),
            ";;GPU-gpu-a-0,NVIDIA,3000,30:;");
  const auto parsed = env.scrape();
  const auto series = parsed.find("hami_vgpu_memory_allocated_bytes", {{"pod", "p"}});
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0]->labels.at("container_index"), "2");
}

TEST(LedgerUsage, InitContainersStopCountingOnceTheyHaveSucceeded) {
  const std::string annotations =
      R"({"hami.io/vgpu-node":"gpu-a","hami.io/vgpu-devices-allocated":)"
      R"("GPU-gpu-a-0,NVIDIA,2000,20:;GPU-gpu-a-0,NVIDIA,1000,10:;"})";
  const std::string running = R"("status":{"phase":"Running"})";
  const std::string init_done =
      R"("status":{"phase":"Running","initContainerStatuses":[{"name":"init0",)"
      R"("state":{"terminated":{"exitCode":0}}}]})";
  Env env("kind: List\nitems:\n" + nvidia_node("gpu-a", 1));
  env.add(pod_json("ml", "p", "uid-p", {kGpu3000}, {kGpu3000}, annotations, running));
  auto parsed = env.scrape();
  // Collapsed: max(init 2000, app 1000).
  EXPECT_EQ(parsed.value("hami_gpu_memory_allocated_bytes"), 2000 * kMiB);
  EXPECT_EQ(parsed.value("hami_vgpu_memory_allocated_bytes", {{"container_index", "0"}}),
            2000 * kMiB);
  EXPECT_EQ(parsed.value("hami_vgpu_memory_allocated_bytes", {{"container_index", "1"}}),
            1000 * kMiB);

  env.add(pod_json("ml", "p", "uid-p", {kGpu3000}, {kGpu3000}, annotations, init_done));
  parsed = env.scrape();
  EXPECT_EQ(parsed.value("hami_gpu_memory_allocated_bytes"), 1000 * kMiB);
  EXPECT_TRUE(parsed.find("hami_vgpu_memory_allocated_bytes", {{"container_index", "0"}}).empty());
  EXPECT_EQ(parsed.value("hami_vgpu_memory_allocated_bytes", {{"container_index", "1"}}),
            1000 * kMiB);
}

TEST(LedgerUsage, QuotasReportUsageAndLimits) {
  const std::string quota =
      "- kind: ResourceQuota\n  metadata:\n    name: gpu\n    namespace: ml\n"
      "  spec:\n    hard:\n      limits.nvidia.com/gpumem: \"10000\"\n";
  Env env("kind: List\nitems:\n" + nvidia_node("gpu-a", 2) + quota);
  env.add(pod_json("ml", "p", "uid-p", {kGpu3000}));
  auto parsed = env.scrape();
  EXPECT_EQ(parsed.value("hami_resource_quota_limit",
                         {{"namespace", "ml"}, {"quota_name", "nvidia.com/gpumem"}}),
            10000);
  EXPECT_EQ(
      parsed.value("hami_resource_quota_used",
                   {{"namespace", "ml"}, {"quota_name", "nvidia.com/gpumem"}, {"limit", "10000"}}),
      0);
  ASSERT_EQ(env.scheduler->bind("ml", "p", "uid-p", "gpu-a"), "");
  parsed = env.scrape();
  EXPECT_EQ(parsed.value("hami_resource_quota_used",
                         {{"namespace", "ml"}, {"quota_name", "nvidia.com/gpumem"}}),
            3000);
  EXPECT_EQ(
      parsed.value("hami_resource_quota_used",
                   {{"namespace", "ml"}, {"quota_name", "nvidia.com/gpucores"}, {"limit", "0"}}),
      30);
  EXPECT_TRUE(
      parsed.find("hami_resource_quota_limit", {{"quota_name", "nvidia.com/gpucores"}}).empty());
}

TEST(LedgerUsage, MigInstancesWithRuntimeIdentity) {
  const std::string annotations =
      R"({"hami.io/vgpu-node":"gpu-m","hami.io/vgpu-devices-allocated":"GPU-gpu-m-0,NVIDIA,4000,0:;",)"
      R"("hami.io/vgpu-mig-allocations":"[{\"containerIndex\":0,\"deviceIndex\":0,)"
      R"(\"gpuUUID\":\"GPU-gpu-m-0\",\"profile\":\"1g.10gb\",\"placement\":{\"start\":6,\"size\":1},)"
      R"(\"migUUID\":\"MIG-abc\",\"gpuInstanceID\":3,\"computeInstanceID\":0},)"
      R"({\"containerIndex\":0,\"deviceIndex\":1,\"gpuUUID\":\"GPU-gpu-m-0\",\"profile\":\"2g.20gb\",)"
      R"(\"placement\":{\"start\":0,\"size\":2}}]"})";
  Env env("kind: List\nitems:\n" + nvidia_node("gpu-m", 1, "mig"));
  env.add(
      pod_json("ml", "p", "uid-p", {kGpu3000}, {}, annotations, R"("status":{"phase":"Running"})"));
  const auto parsed = env.scrape();
  const auto mig = parsed.find("hami_node_gpu_mig_instance_info");
  // Only the instance whose runtime identity is known.
  ASSERT_EQ(mig.size(), 1u);
  EXPECT_EQ(mig[0]->labels, (std::map<std::string, std::string>{{"node", "gpu-m"},
                                                                {"device_uuid", "GPU-gpu-m-0"},
                                                                {"device_index", "0"},
                                                                {"mig_uuid", "MIG-abc"},
                                                                {"profile", "1g.10gb"},
                                                                {"gpu_instance_id", "3"},
                                                                {"compute_instance_id", "0"},
                                                                {"placement_start", "6"},
                                                                {"placement_size", "1"},
                                                                {"zone", "vGPU"}}));
  EXPECT_EQ(mig[0]->value, 1);
}

TEST(LedgerUsage, ScrapeDuringConcurrentBindsIsAlwaysWellFormed) {
  std::string yaml = "kind: List\nitems:\n" + nvidia_node("gpu-a", 4);
  Env env(yaml);
  constexpr int kPods = 40;
  for (int i = 0; i < kPods; ++i) {
    env.add(
        pod_json("ml", "p" + std::to_string(i), "uid-" + std::to_string(i),
                 {R"("nvidia.com/gpu":"1","nvidia.com/gpumem":"100","nvidia.com/gpucores":"1")"}));
  }
  std::atomic<bool> stop{false};
  std::thread scraper([&] {
    while (!stop.load())
      parse_exposition(env.metrics.scrape());
  });
  for (int i = 0; i < kPods; ++i) {
    EXPECT_EQ(
        env.scheduler->bind("ml", "p" + std::to_string(i), "uid-" + std::to_string(i), "gpu-a"),
        "");
    // The device plugin releases the node lock once it has served the pod.
    env.cluster->patch_node_annotations("gpu-a", {{"hami.io/mutex.lock", std::nullopt}},
                                        std::nullopt);
  }
  stop.store(true);
  scraper.join();
  const auto parsed = env.scrape();
  double total = 0;
  for (const auto& [uuid, v] : by_device(parsed, "hami_gpu_memory_allocated_bytes"))
    total += v;
  EXPECT_EQ(total, kPods * 100 * kMiB);
  EXPECT_EQ(parsed.find("hami_vgpu_memory_allocated_bytes").size(), size_t{kPods});
}

}  // namespace

namespace {

TEST(HostMetrics, WiresBuildPluginRequestSchedulerAndClusterMetrics) {
  Env env("kind: List\nitems:\n" + nvidia_node("gpu-a", 1));
  HostMetrics metrics({.legacy_metrics = true,
                       .build = {"9.9.9", "rev", "2026-01-01T00:00:00Z", "", "cc", "linux/amd64"}});
  metrics.plugins().record_loaded(env.registry);
  metrics.add_cluster(*env.scheduler, *env.cluster, env.registry.devices());
  EXPECT_THROW(metrics.add_cluster(*env.scheduler, *env.cluster, env.registry.devices()),
               std::logic_error);
  metrics.requests().observe("/filter", "POST", 200, std::chrono::milliseconds(1));
  metrics.scheduler().record_bind(BindResult::success);

  const auto parsed = parse_exposition(metrics.registry().scrape());
  EXPECT_EQ(parsed.find("hami_build_info", {{"version", "9.9.9"}}).size(), 1u);
  EXPECT_EQ(parsed.find("hami_build_info")[0]->labels.count("zone"), 0u);
  for (const char* name : {"nvidia", "amd", "hami-policies"}) {
    EXPECT_EQ(
        parsed.value("hami_scheduler_plugin_loaded", {{"name", name}, {"abi_version", "1.2"}}), 1)
        << name;
  }
  EXPECT_EQ(parsed.value("hami_gpu_memory_limit_bytes", {{"node", "gpu-a"}, {"zone", "vGPU"}}),
            8000 * kMiB);
  EXPECT_EQ(parsed.value("GPUDeviceMemoryLimit", {{"nodeid", "gpu-a"}}), 8000 * kMiB);
  EXPECT_EQ(parsed.value("hami_scheduler_http_requests_total", {{"route", "/filter"}}), 1);
  EXPECT_EQ(parsed.value("hami_scheduler_bind_total", {{"outcome", "success"}}), 1);
}

}  // namespace
