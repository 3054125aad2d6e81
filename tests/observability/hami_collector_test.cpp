// HAMi's cluster metrics (reference hami-v2.10 §1.7) over a fixed usage
// copy: names, labels, units, zone, normalisation of counted cores, legacy
// names, the vendors' partition families, container_index (bug 7.7#9
// fixed) and hostile label values.
#include "observability/hami_collector.hpp"

#include <gtest/gtest.h>

#include <set>

#include "exposition_parser.hpp"
#include "observability/build_info.hpp"

namespace {

using namespace hami::observability;
using hami::testing::parse_exposition;
using hami::testing::ParsedExposition;

constexpr double kMiB = 1048576.0;

class FixedSource final : public ClusterUsageSource {
 public:
  explicit FixedSource(ClusterUsage usage) : usage_(std::move(usage)) {}
  ClusterUsage usage() const override { return usage_; }

 private:
  ClusterUsage usage_;
};

DeviceUsage device(std::string uuid, uint32_t index, std::string type, int64_t mem, int64_t cores,
                   int64_t slots = 0, int64_t used_mem = 0, int64_t used_cores = 0) {
  DeviceUsage d;
  d.uuid = std::move(uuid);
  d.index = index;
  d.type = std::move(type);
  d.mode = "hami-core";
  d.memory_total_mib = mem;
  d.cores_total = cores;
  d.slots_used = slots;
  d.memory_used_mib = used_mem;
  d.cores_used = used_cores;
  return d;
}

// The partition families nvidia.so declares for MIG instances
// (plugins/devices/nvidia/mig_partitions.hpp), at indexes 0 and 1.
void add_mig_families(ClusterUsage& u) {
  u.partition_families.push_back({"hami_node_gpu_mig_instance_info",
                                  "Realized MIG instance identity and scheduler placement",
                                  {"mig_uuid", "profile", "gpu_instance_id", "compute_instance_id",
                                   "placement_start", "placement_size"},
                                  false});
  u.partition_families.push_back({"nodeGPUMigInstance",
                                  "GPU Sharing mode. 0 for hami-core, 1 for mig, 2 for mps",
                                  {"migname"},
                                  true});
}

// The two partitions nvidia.so reports for MIG-1 (1g.10gb, GI 3, CI 0,
// placement 6+1).
void add_mig_instance(DeviceUsage& d) {
  d.partitions.push_back({0, {"MIG-1", "1g.10gb", "3", "0", "6", "1"}});
  d.partitions.push_back({1, {"1g.10gb-3"}});
}

ClusterUsage small_cluster() {
  ClusterUsage u;
  u.nodes.push_back({"gpu-a",
                     {device("GPU-a0", 0, "NVIDIA-A100", 40960, 100, 2, 4000, 30),
                      device("GPU-a1", 1, "NVIDIA-A100", 40960, 100)}});
  u.nodes.push_back(
      {"amd-1", {device("amd-dev-0", 0, "AMD Instinct MI300X VF", 196608, 304, 1, 16384, 76)}});
  u.nodes[1].devices[0].cores_count = true;  // amd.so counts compute units
  // One init container (index 0) and two app containers; the second app
  // container (index 2) holds the GPU.
  u.pods.push_back({"ml", "trainer", "gpu-a", {{0, "GPU-a0", 1000, 10}, {2, "GPU-a0", 3000, 20}}});
  u.pods.push_back({"ml", "rocm", "amd-1", {{0, "amd-dev-0", 16384, 76}}});
  u.quotas.push_back({"ml", "nvidia.com/gpumem", 4000, 20000});
  u.quotas.push_back({"ml", "nvidia.com/gpucores", 30, std::nullopt});
  return u;
}

std::string scrape(ClusterUsage usage, HamiMetricsOptions options = {}) {
  MetricsRegistry registry;
  add_hami_cluster_metrics(registry, std::make_shared<FixedSource>(std::move(usage)), options);
  return registry.scrape();
}

TEST(HamiMetrics, FullOutputIsHamisFormat) {
  const std::string text = scrape(small_cluster());
  // Everything but the registry's own error counter, which has no series
  // yet and is therefore absent.
  EXPECT_EQ(text,
            R"(# HELP hami_gpu_core_allocated_ratio Device core allocated for a certain GPU
# TYPE hami_gpu_core_allocated_ratio gauge
hami_gpu_core_allocated_ratio{device_index="0",device_type="AMD Instinct MI300X VF",device_uuid="amd-dev-0",node="amd-1",zone="vGPU"} 25
hami_gpu_core_allocated_ratio{device_index="0",device_type="NVIDIA-A100",device_uuid="GPU-a0",node="gpu-a",zone="vGPU"} 30
hami_gpu_core_allocated_ratio{device_index="1",device_type="NVIDIA-A100",device_uuid="GPU-a1",node="gpu-a",zone="vGPU"} 0
# HELP hami_gpu_core_limit_ratio Device core limit for a certain GPU
# TYPE hami_gpu_core_limit_ratio gauge
hami_gpu_core_limit_ratio{device_index="0",device_type="AMD Instinct MI300X VF",device_uuid="amd-dev-0",node="amd-1",zone="vGPU"} 100
hami_gpu_core_limit_ratio{device_index="0",device_type="NVIDIA-A100",device_uuid="GPU-a0",node="gpu-a",zone="vGPU"} 100
hami_gpu_core_limit_ratio{device_index="1",device_type="NVIDIA-A100",device_uuid="GPU-a1",node="gpu-a",zone="vGPU"} 100
# HELP hami_gpu_memory_allocated_bytes Device memory allocated for a certain GPU
# TYPE hami_gpu_memory_allocated_bytes gauge
hami_gpu_memory_allocated_bytes{device_cores="100",device_index="0",device_type="NVIDIA-A100",device_uuid="GPU-a0",node="gpu-a",zone="vGPU"} 4.194304e+09
hami_gpu_memory_allocated_bytes{device_cores="100",device_index="1",device_type="NVIDIA-A100",device_uuid="GPU-a1",node="gpu-a",zone="vGPU"} 0
hami_gpu_memory_allocated_bytes{device_cores="304",device_index="0",device_type="AMD Instinct MI300X VF",device_uuid="amd-dev-0",node="amd-1",zone="vGPU"} 1.7179869184e+10
# HELP hami_gpu_memory_limit_bytes Device memory limit for a certain GPU
# TYPE hami_gpu_memory_limit_bytes gauge
hami_gpu_memory_limit_bytes{device_index="0",device_type="AMD Instinct MI300X VF",device_uuid="amd-dev-0",node="amd-1",zone="vGPU"} 2.06158430208e+11
hami_gpu_memory_limit_bytes{device_index="0",device_type="NVIDIA-A100",device_uuid="GPU-a0",node="gpu-a",zone="vGPU"} 4.294967296e+10
hami_gpu_memory_limit_bytes{device_index="1",device_type="NVIDIA-A100",device_uuid="GPU-a1",node="gpu-a",zone="vGPU"} 4.294967296e+10
# HELP hami_gpu_shared_count Number of containers sharing this GPU
# TYPE hami_gpu_shared_count gauge
hami_gpu_shared_count{device_index="0",device_type="AMD Instinct MI300X VF",device_uuid="amd-dev-0",node="amd-1",zone="vGPU"} 1
hami_gpu_shared_count{device_index="0",device_type="NVIDIA-A100",device_uuid="GPU-a0",node="gpu-a",zone="vGPU"} 2
hami_gpu_shared_count{device_index="1",device_type="NVIDIA-A100",device_uuid="GPU-a1",node="gpu-a",zone="vGPU"} 0
# HELP hami_node_gpu_memory_allocated_ratio GPU Memory Allocated Percentage on a certain GPU
# TYPE hami_node_gpu_memory_allocated_ratio gauge
hami_node_gpu_memory_allocated_ratio{device_index="0",device_type="AMD Instinct MI300X VF",device_uuid="amd-dev-0",node="amd-1",zone="vGPU"} 0.08333333333333333
hami_node_gpu_memory_allocated_ratio{device_index="0",device_type="NVIDIA-A100",device_uuid="GPU-a0",node="gpu-a",zone="vGPU"} 0.09765625
hami_node_gpu_memory_allocated_ratio{device_index="1",device_type="NVIDIA-A100",device_uuid="GPU-a1",node="gpu-a",zone="vGPU"} 0
# HELP hami_node_gpu_overview GPU overview on a certain node
# TYPE hami_node_gpu_overview gauge
hami_node_gpu_overview{device_cores="100",device_index="0",device_memory_limit="40960",device_type="NVIDIA-A100",device_uuid="GPU-a0",node="gpu-a",zone="vGPU"} 4.194304e+09
hami_node_gpu_overview{device_cores="100",device_index="1",device_memory_limit="40960",device_type="NVIDIA-A100",device_uuid="GPU-a1",node="gpu-a",zone="vGPU"} 0
hami_node_gpu_overview{device_cores="304",device_index="0",device_memory_limit="196608",device_type="AMD Instinct MI300X VF",device_uuid="amd-dev-0",node="amd-1",zone="vGPU"} 1.7179869184e+10
# HELP hami_resource_quota_limit resourcequota limit for a certain device
# TYPE hami_resource_quota_limit gauge
hami_resource_quota_limit{namespace="ml",quota_name="nvidia.com/gpumem",zone="vGPU"} 20000
# HELP hami_resource_quota_used resourcequota usage for a certain device
# TYPE hami_resource_quota_used gauge
hami_resource_quota_used{limit="0",namespace="ml",quota_name="nvidia.com/gpucores",zone="vGPU"} 30
hami_resource_quota_used{limit="20000",namespace="ml",quota_name="nvidia.com/gpumem",zone="vGPU"} 4000
# HELP hami_vgpu_core_allocated_ratio vGPU core allocated from a container
# TYPE hami_vgpu_core_allocated_ratio gauge
hami_vgpu_core_allocated_ratio{container_index="0",device_uuid="GPU-a0",namespace="ml",node="gpu-a",pod="trainer",zone="vGPU"} 10
hami_vgpu_core_allocated_ratio{container_index="0",device_uuid="amd-dev-0",namespace="ml",node="amd-1",pod="rocm",zone="vGPU"} 25
hami_vgpu_core_allocated_ratio{container_index="2",device_uuid="GPU-a0",namespace="ml",node="gpu-a",pod="trainer",zone="vGPU"} 20
# HELP hami_vgpu_memory_allocated_bytes vGPU memory allocated from a container
# TYPE hami_vgpu_memory_allocated_bytes gauge
hami_vgpu_memory_allocated_bytes{container_index="0",device_uuid="GPU-a0",namespace="ml",node="gpu-a",pod="trainer",zone="vGPU"} 1.048576e+09
hami_vgpu_memory_allocated_bytes{container_index="0",device_uuid="amd-dev-0",namespace="ml",node="amd-1",pod="rocm",zone="vGPU"} 1.7179869184e+10
hami_vgpu_memory_allocated_bytes{container_index="2",device_uuid="GPU-a0",namespace="ml",node="gpu-a",pod="trainer",zone="vGPU"} 3.145728e+09
)");
  EXPECT_NO_THROW(parse_exposition(text));
}

TEST(HamiMetrics, LabelSetsAreExactlyHamis) {
  ClusterUsage u = small_cluster();
  add_mig_families(u);
  u.nodes[0].devices[0].mode = "mig";
  add_mig_instance(u.nodes[0].devices[0]);
  const auto parsed = parse_exposition(scrape(u));
  const std::map<std::string, std::set<std::string>> expected = {
      {"hami_gpu_memory_limit_bytes", {"node", "device_uuid", "device_index", "device_type"}},
      {"hami_gpu_core_limit_ratio", {"node", "device_uuid", "device_index", "device_type"}},
      {"hami_gpu_memory_allocated_bytes",
       {"node", "device_uuid", "device_index", "device_cores", "device_type"}},
      {"hami_gpu_shared_count", {"node", "device_uuid", "device_index", "device_type"}},
      {"hami_gpu_core_allocated_ratio", {"node", "device_uuid", "device_index", "device_type"}},
      {"hami_node_gpu_overview",
       {"node", "device_uuid", "device_index", "device_cores", "device_memory_limit",
        "device_type"}},
      {"hami_node_gpu_memory_allocated_ratio",
       {"node", "device_uuid", "device_index", "device_type"}},
      {"hami_node_gpu_mig_instance_info",
       {"node", "device_uuid", "device_index", "mig_uuid", "profile", "gpu_instance_id",
        "compute_instance_id", "placement_start", "placement_size"}},
      {"hami_resource_quota_used", {"namespace", "quota_name", "limit"}},
      {"hami_resource_quota_limit", {"namespace", "quota_name"}},
      {"hami_vgpu_memory_allocated_bytes",
       {"namespace", "node", "pod", "container_index", "device_uuid"}},
      {"hami_vgpu_core_allocated_ratio",
       {"namespace", "node", "pod", "container_index", "device_uuid"}},
  };
  for (const auto& [name, labels] : expected) {
    const auto* family = parsed.family(name);
    ASSERT_NE(family, nullptr) << name;
    EXPECT_EQ(family->type, "gauge") << name;
    std::set<std::string> with_zone = labels;
    with_zone.insert("zone");
    for (const auto& s : family->samples) {
      std::set<std::string> got;
      for (const auto& [k, v] : s.labels)
        got.insert(k);
      EXPECT_EQ(got, with_zone) << name;
      EXPECT_EQ(s.labels.at("zone"), "vGPU");
    }
  }
  EXPECT_EQ(parsed.families.size(), expected.size());
  EXPECT_EQ(parsed.value("hami_node_gpu_mig_instance_info", {{"mig_uuid", "MIG-1"},
                                                             {"profile", "1g.10gb"},
                                                             {"gpu_instance_id", "3"},
                                                             {"compute_instance_id", "0"},
                                                             {"placement_start", "6"},
                                                             {"placement_size", "1"},
                                                             {"device_uuid", "GPU-a0"}}),
            1);
}

TEST(HamiMetrics, MigInstanceFamiliesAreHamisBytes) {
  ClusterUsage u = small_cluster();
  add_mig_families(u);
  u.nodes[0].devices[0].mode = "mig";
  add_mig_instance(u.nodes[0].devices[0]);
  const std::string text = scrape(u, {.legacy_metrics = true});
  EXPECT_NE(
      text.find("# HELP hami_node_gpu_mig_instance_info Realized MIG instance identity and "
                "scheduler placement\n# TYPE hami_node_gpu_mig_instance_info gauge\n"
                "hami_node_gpu_mig_instance_info{compute_instance_id=\"0\",device_index=\"0\","
                "device_uuid=\"GPU-a0\",gpu_instance_id=\"3\",mig_uuid=\"MIG-1\",node=\"gpu-a\","
                "placement_size=\"1\",placement_start=\"6\",profile=\"1g.10gb\",zone=\"vGPU\"} 1\n"
                "# HELP hami_node_gpu_overview "),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("# HELP nodeGPUMigInstance GPU Sharing mode. 0 for hami-core, 1 for mig, 2 "
                      "for mps\n# TYPE nodeGPUMigInstance gauge\n"
                      "nodeGPUMigInstance{deviceidx=\"0\",deviceuuid=\"GPU-a0\","
                      "migname=\"1g.10gb-3\",nodeid=\"gpu-a\",zone=\"vGPU\"} 1\n"),
            std::string::npos)
      << text;
}

TEST(HamiMetrics, PartitionFamiliesCarryTheDeviceLabelsFirst) {
  ClusterUsage u;
  u.nodes.push_back(
      {"n", {device("dev-0", 4, "SLICE", 1024, 100), device("dev-1", 5, "SLICE", 1024, 100)}});
  u.partition_families.push_back({"example_slice_info", "Slices in use", {"slice"}, false});
  u.nodes[0].devices[1].partitions.push_back({0, {"slice=2"}});
  u.nodes[0].devices[1].partitions.push_back({0, {"slice=0"}});
  const std::string text = scrape(u, {.legacy_metrics = true});
  EXPECT_NE(text.find("# HELP example_slice_info Slices in use\n# TYPE example_slice_info gauge\n"
                      "example_slice_info{device_index=\"5\",device_uuid=\"dev-1\",node=\"n\","
                      "slice=\"slice=0\",zone=\"vGPU\"} 1\n"
                      "example_slice_info{device_index=\"5\",device_uuid=\"dev-1\",node=\"n\","
                      "slice=\"slice=2\",zone=\"vGPU\"} 1\n#"),
            std::string::npos)
      << text;
}

TEST(HamiMetrics, LegacyPartitionFamiliesOnlyWithLegacyNames) {
  ClusterUsage u = small_cluster();
  add_mig_families(u);
  add_mig_instance(u.nodes[0].devices[0]);
  const auto plain = parse_exposition(scrape(u));
  EXPECT_EQ(plain.family("nodeGPUMigInstance"), nullptr);
  EXPECT_EQ(plain.find("hami_node_gpu_mig_instance_info").size(), 1u);
  const auto legacy = parse_exposition(scrape(u, {.legacy_metrics = true}));
  EXPECT_EQ(legacy.value("nodeGPUMigInstance", {{"nodeid", "gpu-a"},
                                                {"deviceuuid", "GPU-a0"},
                                                {"deviceidx", "0"},
                                                {"migname", "1g.10gb-3"}}),
            1);
}

TEST(HamiMetrics, PartitionsNamingNoFamilyOrWithWrongValuesAreSkipped) {
  ClusterUsage u = small_cluster();
  add_mig_families(u);
  DeviceUsage& d = u.nodes[0].devices[0];
  d.partitions.push_back({2, {"x"}});                   // no family 2
  d.partitions.push_back({1, {"1g.10gb-3", "extra"}});  // two values for one label
  d.partitions.push_back({0, {"MIG-2", "2g.20gb"}});    // two values for six labels
  d.partitions.push_back({1, {"2g.20gb-1"}});
  const auto parsed = parse_exposition(scrape(u, {.legacy_metrics = true}));
  EXPECT_EQ(parsed.family("hami_node_gpu_mig_instance_info"), nullptr);
  const auto series = parsed.find("nodeGPUMigInstance");
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0]->labels.at("migname"), "2g.20gb-1");
}

TEST(HamiMetrics, MemoryRatioOmittedWithoutTotalMemory) {
  ClusterUsage u;
  u.nodes.push_back({"n", {device("GPU-0", 0, "NVIDIA", 0, 100)}});
  const auto parsed = parse_exposition(scrape(u));
  EXPECT_EQ(parsed.family("hami_node_gpu_memory_allocated_ratio"), nullptr);
  EXPECT_EQ(parsed.value("hami_gpu_memory_limit_bytes"), 0);
}

TEST(HamiMetrics, CountedCoresAreNormalisedToPercentRoundingUp) {
  ClusterUsage u;
  u.nodes.push_back({"n", {device("cu-0", 3, "instinct", 1000, 304, 1, 10, 77)}});
  u.nodes[0].devices[0].cores_count = true;
  u.pods.push_back({"ns", "p", "n", {{0, "cu-0", 10, 77}}});
  const auto parsed = parse_exposition(scrape(u, {.legacy_metrics = true}));
  // ceil(77 / 304 * 100) = ceil(25.33) = 26
  EXPECT_EQ(parsed.value("hami_gpu_core_allocated_ratio"), 26);
  EXPECT_EQ(parsed.value("hami_gpu_core_limit_ratio"), 100);
  EXPECT_EQ(parsed.value("hami_vgpu_core_allocated_ratio"), 26);
  // Legacy values stay raw.
  EXPECT_EQ(parsed.value("GPUDeviceCoreAllocated"), 77);
  EXPECT_EQ(parsed.value("GPUDeviceCoreLimit"), 304);
  EXPECT_EQ(parsed.value("vGPUCoreAllocated"), 77);
}

TEST(HamiMetrics, PercentCoresAreNotNormalisedWhateverTheType) {
  ClusterUsage u;
  u.nodes.push_back({"n", {device("amd-0", 3, "AMD Instinct", 1000, 304, 1, 10, 77)}});
  u.pods.push_back({"ns", "p", "n", {{0, "amd-0", 10, 77}}});
  const auto parsed = parse_exposition(scrape(u));
  EXPECT_EQ(parsed.value("hami_gpu_core_allocated_ratio"), 77);
  EXPECT_EQ(parsed.value("hami_gpu_core_limit_ratio"), 304);
  EXPECT_EQ(parsed.value("hami_vgpu_core_allocated_ratio"), 77);
}

TEST(HamiMetrics, LegacyNamesOnlyWhenEnabled) {
  ClusterUsage u = small_cluster();
  add_mig_families(u);
  u.nodes[0].devices[0].mode = "mig";
  add_mig_instance(u.nodes[0].devices[0]);
  EXPECT_EQ(parse_exposition(scrape(u)).family("GPUDeviceMemoryLimit"), nullptr);
  const auto parsed = parse_exposition(scrape(u, {.legacy_metrics = true}));
  const std::map<std::string, std::set<std::string>> expected = {
      {"GPUDeviceMemoryLimit", {"nodeid", "deviceuuid", "deviceidx", "devicetype"}},
      {"GPUDeviceCoreLimit", {"nodeid", "deviceuuid", "deviceidx", "devicetype"}},
      {"GPUDeviceMemoryAllocated",
       {"nodeid", "deviceuuid", "deviceidx", "devicecores", "devicetype"}},
      {"GPUDeviceSharedNum", {"nodeid", "deviceuuid", "deviceidx", "devicetype"}},
      {"GPUDeviceCoreAllocated", {"nodeid", "deviceuuid", "deviceidx", "devicetype"}},
      {"nodeGPUOverview",
       {"nodeid", "deviceuuid", "deviceidx", "devicecores", "devicememorylimit", "devicetype"}},
      {"nodeGPUMemoryPercentage", {"nodeid", "deviceuuid", "deviceidx", "devicetype"}},
      {"nodeGPUMigInstance", {"nodeid", "deviceuuid", "deviceidx", "migname"}},
      {"QuotaUsed", {"quotanamespace", "quotaName", "limit"}},
      {"vGPUMemoryAllocated",
       {"podnamespace", "nodename", "podname", "containeridx", "deviceuuid"}},
      {"vGPUCoreAllocated", {"podnamespace", "nodename", "podname", "containeridx", "deviceuuid"}},
  };
  for (const auto& [name, labels] : expected) {
    const auto* family = parsed.family(name);
    ASSERT_NE(family, nullptr) << name;
    std::set<std::string> with_zone = labels;
    with_zone.insert("zone");
    for (const auto& s : family->samples) {
      std::set<std::string> got;
      for (const auto& [k, v] : s.labels)
        got.insert(k);
      EXPECT_EQ(got, with_zone) << name;
    }
  }
  EXPECT_EQ(parsed.value("nodeGPUMigInstance", {{"migname", "1g.10gb-3"}}), 1);
  EXPECT_EQ(parsed.value("vGPUMemoryAllocated", {{"podname", "trainer"}, {"containeridx", "2"}}),
            3000 * kMiB);
  // The new names are still there.
  EXPECT_NE(parsed.family("hami_gpu_memory_limit_bytes"), nullptr);
}

TEST(HamiMetrics, ContainerIndexIsTheRealContainerPosition) {
  const auto parsed = parse_exposition(scrape(small_cluster()));
  const auto series = parsed.find("hami_vgpu_memory_allocated_bytes", {{"pod", "trainer"}});
  std::set<std::string> indexes;
  for (const auto* s : series)
    indexes.insert(s->labels.at("container_index"));
  // HAMi v2.10 reports "0" for every container (bug 7.7#9).
  EXPECT_EQ(indexes, (std::set<std::string>{"0", "2"}));
}

TEST(HamiMetrics, HostileLabelValuesAreEscaped) {
  const std::string pod = "evil\"pod\\name\nline2\xFF";
  const std::string type = "NVIDIA \"A100\"\\\n\xC3";
  ClusterUsage u;
  u.nodes.push_back({"node\"1", {device("GPU-\\0", 0, type, 1024, 100, 1, 512, 50)}});
  u.pods.push_back({"ns\n", pod, "node\"1", {{1, "GPU-\\0", 512, 50}}});
  u.quotas.push_back({"ns\n", "nvidia.com/gpumem", 512, std::nullopt});
  const std::string text = scrape(u, {.legacy_metrics = true});
  // Raw forms never appear; each line stays one line.
  EXPECT_EQ(text.find("evil\"pod"), std::string::npos);
  EXPECT_NE(text.find("pod=\"evil\\\"pod\\\\name\\nline2\xEF\xBF\xBD\""), std::string::npos);
  EXPECT_NE(text.find("device_type=\"NVIDIA \\\"A100\\\"\\\\\\n\xEF\xBF\xBD\""), std::string::npos);
  const auto parsed = parse_exposition(text);
  EXPECT_EQ(parsed.value("hami_vgpu_memory_allocated_bytes",
                         {{"pod", "evil\"pod\\name\nline2\xEF\xBF\xBD"},
                          {"namespace", "ns\n"},
                          {"node", "node\"1"},
                          {"device_uuid", "GPU-\\0"},
                          {"container_index", "1"}}),
            512 * kMiB);
  EXPECT_EQ(parsed.value("hami_gpu_memory_limit_bytes",
                         {{"device_type", "NVIDIA \"A100\"\\\n\xEF\xBF\xBD"}}),
            1024 * kMiB);
  EXPECT_EQ(parsed.value("vGPUCoreAllocated", {{"podname", "evil\"pod\\name\nline2\xEF\xBF\xBD"}}),
            50);
}

// Two MIG instances of one GPU in one container: one series, their sum
// (the exposition would otherwise drop the second as a duplicate).
TEST(HamiMetrics, AContainersAllocationsOnOneDeviceAreSummed) {
  ClusterUsage u;
  u.nodes.push_back({"n", {device("cu-0", 0, "instinct", 40960, 304, 2, 19712, 152)}});
  u.nodes[0].devices[0].cores_count = true;
  u.pods.push_back({"ns", "p", "n", {{0, "cu-0", 9856, 76}, {0, "cu-0", 9856, 76}}});
  std::vector<std::string> problems;
  MetricsRegistry registry;
  add_hami_cluster_metrics(registry, std::make_shared<FixedSource>(u), {.legacy_metrics = true});
  const auto parsed = parse_exposition(registry.scrape(&problems));
  EXPECT_EQ(problems, std::vector<std::string>{});
  EXPECT_EQ(parsed.value("hami_vgpu_memory_allocated_bytes"), 19712 * kMiB);
  EXPECT_EQ(parsed.value("hami_vgpu_core_allocated_ratio"), 50);  // ceil(152 / 304 * 100)
  EXPECT_EQ(parsed.value("vGPUMemoryAllocated"), 19712 * kMiB);
  EXPECT_EQ(parsed.value("vGPUCoreAllocated"), 152);
}

TEST(HamiMetrics, AllocationsWithoutDeviceIdAreSkipped) {
  ClusterUsage u;
  u.pods.push_back({"ns", "p", "n", {{0, "", 100, 10}}});
  EXPECT_EQ(parse_exposition(scrape(u)).family("hami_vgpu_memory_allocated_bytes"), nullptr);
}

TEST(BuildInfo, NotWrappedWithZone) {
  MetricsRegistry registry;
  add_build_info(registry,
                 {"1.2.3", "abc123", "2026-01-01T00:00:00Z", "", "gcc 12", "linux/amd64"});
  add_hami_cluster_metrics(registry, std::make_shared<FixedSource>(small_cluster()));
  const std::string text = registry.scrape();
  EXPECT_NE(text.find("# HELP hami_build_info hami build metadata exposed as labels with a "
                      "constant value of 1.\n# TYPE hami_build_info gauge\n"
                      "hami_build_info{build_date=\"2026-01-01T00:00:00Z\",compiler=\"gcc 12\","
                      "go_version=\"\",platform=\"linux/amd64\",revision=\"abc123\","
                      "version=\"1.2.3\"} 1\n"),
            std::string::npos)
      << text;
}

TEST(BuildInfo, ThisBuildIsFilledIn) {
  const BuildInfo info = this_build();
  EXPECT_FALSE(info.version.empty());
  EXPECT_FALSE(info.revision.empty());
  EXPECT_EQ(info.build_date.size(), 20u);  // 2026-01-01T00:00:00Z
  EXPECT_TRUE(info.go_version.empty());
  EXPECT_FALSE(info.compiler.empty());
  EXPECT_NE(info.platform.find('/'), std::string::npos);
}

}  // namespace
