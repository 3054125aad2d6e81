// LedgerUsageSource's vendor-described parts over a real Scheduler: the
// partition families and partitions of describe_partitions (nvidia.so's
// MIG instances, byte for byte as HAMi names them; the test vendor
// slices.so's own family), partitions naming unknown devices, a vendor
// whose call fails, and each device's cores unit from its vendor's
// description (amd.so counts compute units).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "cluster/file_cluster.hpp"
#include "exposition_parser.hpp"
#include "observability/hami_collector.hpp"
#include "observability/ledger_usage_source.hpp"
#include "plugins/host_services.hpp"
#include "plugins/plugin_registry.hpp"
#include "scheduling/scheduler.hpp"

namespace {

using namespace hami;
using namespace hami::observability;
using hami::testing::parse_exposition;

struct PartitionEnv {
  host::HostServices services{[](int32_t, std::string_view, std::string_view) {},
                              [] { return int64_t{1'750'000'000}; }};
  host::PluginRegistry registry;
  std::unique_ptr<cluster::FileClusterState> cluster;
  std::unique_ptr<scheduling::Scheduler> scheduler;
  std::shared_ptr<LedgerUsageSource> source;
  MetricsRegistry metrics;

  PartitionEnv(const std::string& directory, const std::vector<host::PluginSpec>& plugins,
               const std::string& yaml) {
    registry = host::PluginRegistry::load({directory, true}, plugins, services);
    cluster = cluster::FileClusterState::from_text(yaml, "partitions-test.yaml");
    scheduling::SchedulerOptions options;
    options.clock = [] { return int64_t{1'750'000'000}; };
    scheduler = std::make_unique<scheduling::Scheduler>(*cluster, registry.devices(),
                                                        registry.scheduling(), options);
    source = std::make_shared<LedgerUsageSource>(*scheduler, *cluster, registry.devices());
    add_hami_cluster_metrics(metrics, source, {.legacy_metrics = true});
  }
  ~PartitionEnv() { scheduler.reset(); }
};

PartitionEnv nvidia_env(const std::string& yaml) {
  return {
      HAMI_PLUGIN_DIR,
      {{"nvidia", "nvidia.so", HAMI_KIND_DEVICE, "{}"}, {"amd", "amd.so", HAMI_KIND_DEVICE, "{}"}},
      yaml};
}

// A node with two A100s in MIG mode.
const std::string kMigNode = R"(kind: List
items:
- kind: Node
  metadata:
    name: gpu-m
    annotations:
      hami.io/node-nvidia-register: '[{"id":"GPU-m0","index":0,"count":7,"devmem":40960,"devcore":100,"type":"NVIDIA-A100","numa":0,"mode":"mig","health":true},{"id":"GPU-m1","index":1,"count":7,"devmem":40960,"devcore":100,"type":"NVIDIA-A100","numa":0,"mode":"mig","health":true}]'
  status: {capacity: {nvidia.com/gpu: "14"}, allocatable: {nvidia.com/gpu: "14"}}
)";

// A running pod on gpu-m holding `allocated`, with `mig` as its
// hami.io/vgpu-mig-allocations (a YAML single-quoted scalar).
std::string mig_pod(const std::string& name, const std::string& allocated, const std::string& mig) {
  return R"(- kind: Pod
  metadata:
    name: )" +
         name + R"(
    namespace: ml
    uid: uid-)" +
         name + R"(
    annotations:
      hami.io/vgpu-node: gpu-m
      hami.io/vgpu-devices-allocated: ")" +
         allocated + R"("
      hami.io/vgpu-mig-allocations: ')" +
         mig + R"('
  spec:
    nodeName: gpu-m
    schedulerName: hami-scheduler
    containers: [{name: c, resources: {limits: {nvidia.com/gpu: "1"}}}]
  status: {phase: Running}
)";
}

// The text of one family in `text`: from its HELP line to the next family.
std::string family_text(const std::string& text, const std::string& name) {
  const size_t start = text.find("# HELP " + name + " ");
  if (start == std::string::npos)
    return "";
  const size_t end = text.find("# HELP ", start + 1);
  return text.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

TEST(LedgerPartitions, MigInstanceFamiliesAreHamisBytes) {
  PartitionEnv env = nvidia_env(
      kMigNode +
      mig_pod("a", "GPU-m1,NVIDIA,10240,0:GPU-m0,NVIDIA,5120,0:;",
              R"([{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-m1","profile":"2g.10gb",)"
              R"("placement":{"start":2,"size":2},"migUUID":"MIG-b","gpuInstanceID":5,)"
              R"("computeInstanceID":0},{"containerIndex":0,"deviceIndex":1,"gpuUUID":"GPU-m0",)"
              R"("profile":"1g.5gb","placement":{"start":6,"size":1},"migUUID":"MIG-a",)"
              R"("gpuInstanceID":13,"computeInstanceID":2}])"));
  const std::string text = env.metrics.scrape();
  EXPECT_EQ(family_text(text, "hami_node_gpu_mig_instance_info"),
            "# HELP hami_node_gpu_mig_instance_info Realized MIG instance identity and scheduler "
            "placement\n"
            "# TYPE hami_node_gpu_mig_instance_info gauge\n"
            "hami_node_gpu_mig_instance_info{compute_instance_id=\"0\",device_index=\"1\","
            "device_uuid=\"GPU-m1\",gpu_instance_id=\"5\",mig_uuid=\"MIG-b\",node=\"gpu-m\","
            "placement_size=\"2\",placement_start=\"2\",profile=\"2g.10gb\",zone=\"vGPU\"} 1\n"
            "hami_node_gpu_mig_instance_info{compute_instance_id=\"2\",device_index=\"0\","
            "device_uuid=\"GPU-m0\",gpu_instance_id=\"13\",mig_uuid=\"MIG-a\",node=\"gpu-m\","
            "placement_size=\"1\",placement_start=\"6\",profile=\"1g.5gb\",zone=\"vGPU\"} 1\n");
  EXPECT_EQ(family_text(text, "nodeGPUMigInstance"),
            "# HELP nodeGPUMigInstance GPU Sharing mode. 0 for hami-core, 1 for mig, 2 for mps\n"
            "# TYPE nodeGPUMigInstance gauge\n"
            "nodeGPUMigInstance{deviceidx=\"0\",deviceuuid=\"GPU-m0\",migname=\"1g.5gb-13\","
            "nodeid=\"gpu-m\",zone=\"vGPU\"} 1\n"
            "nodeGPUMigInstance{deviceidx=\"1\",deviceuuid=\"GPU-m1\",migname=\"2g.10gb-5\","
            "nodeid=\"gpu-m\",zone=\"vGPU\"} 1\n");
}

TEST(LedgerPartitions, AVendorErrorLeavesOnlyThatPodWithoutPartitions) {
  // Pod "bad"'s MIG annotation is no array of objects: nvidia.so's
  // describe_partitions fails for it (its allocation still decodes).
  PartitionEnv env = nvidia_env(
      kMigNode + mig_pod("bad", "GPU-m0,NVIDIA,5120,0:;", "[1]") +
      mig_pod("good", "GPU-m1,NVIDIA,5120,0:;",
              R"([{"gpuUUID":"GPU-m1","profile":"1g.5gb","placement":{"start":0,"size":1},)"
              R"("migUUID":"MIG-g","gpuInstanceID":9,"computeInstanceID":0}])"));
  const auto parsed = parse_exposition(env.metrics.scrape());
  const auto mig = parsed.find("hami_node_gpu_mig_instance_info");
  ASSERT_EQ(mig.size(), 1u);
  EXPECT_EQ(mig[0]->labels.at("mig_uuid"), "MIG-g");
  EXPECT_EQ(mig[0]->labels.at("device_uuid"), "GPU-m1");
  // The rest of the scrape is unaffected.
  EXPECT_EQ(parsed.value("hami_gpu_memory_allocated_bytes", {{"device_uuid", "GPU-m0"}}),
            5120 * 1048576.0);
}

TEST(LedgerPartitions, PartitionsNamingUnknownDevicesAreIgnored) {
  PartitionEnv env = nvidia_env(
      kMigNode +
      mig_pod("p", "GPU-m0,NVIDIA,5120,0:;",
              R"([{"gpuUUID":"GPU-elsewhere","profile":"1g.5gb","placement":{"start":0,"size":1},)"
              R"("migUUID":"MIG-x","gpuInstanceID":1,"computeInstanceID":0}])"));
  const ClusterUsage usage = env.source->usage();
  ASSERT_EQ(usage.nodes.size(), 1u);
  ASSERT_EQ(usage.nodes[0].devices.size(), 2u);
  EXPECT_TRUE(usage.nodes[0].devices[0].partitions.empty());
  EXPECT_TRUE(usage.nodes[0].devices[1].partitions.empty());
  EXPECT_EQ(parse_exposition(env.metrics.scrape()).family("hami_node_gpu_mig_instance_info"),
            nullptr);
}

TEST(LedgerPartitions, FamiliesAndCoresUnitComeFromTheDescriptions) {
  PartitionEnv env = nvidia_env(kMigNode + R"(- kind: Node
  metadata:
    name: amd-1
    annotations:
      hami.io/node-amd-register: '[{"id":"amd-0","count":4,"devmem":196608,"devcore":304,"type":"AMD Instinct MI300X VF","mode":"hami-core","health":true}]'
  status: {capacity: {amd.com/gpu: "4"}, allocatable: {amd.com/gpu: "4"}}
)");
  const ClusterUsage usage = env.source->usage();
  ASSERT_EQ(usage.partition_families.size(), 2u);  // nvidia.so's two; amd.so has none
  EXPECT_EQ(usage.partition_families[0].name, "hami_node_gpu_mig_instance_info");
  EXPECT_EQ(usage.partition_families[0].labels,
            (std::vector<std::string>{"mig_uuid", "profile", "gpu_instance_id",
                                      "compute_instance_id", "placement_start", "placement_size"}));
  EXPECT_FALSE(usage.partition_families[0].legacy);
  EXPECT_EQ(usage.partition_families[1].name, "nodeGPUMigInstance");
  EXPECT_EQ(usage.partition_families[1].labels, (std::vector<std::string>{"migname"}));
  EXPECT_TRUE(usage.partition_families[1].legacy);
  ASSERT_EQ(usage.nodes.size(), 2u);
  for (const NodeUsage& node : usage.nodes) {
    for (const DeviceUsage& d : node.devices)
      EXPECT_EQ(d.cores_count, node.name == "amd-1") << d.uuid;
  }
}

// slices.so: one device with three slices, one with two; a running pod
// holds slices 1 and 0 of dev-1 and names a device the node lacks.
const std::string kSlicesCluster = R"(kind: List
items:
- kind: Node
  metadata:
    name: node-a
    annotations:
      example.com/slice-register: "dev-0=3,dev-1=2"
- kind: Pod
  metadata:
    name: running
    namespace: ml
    uid: uid-running
    annotations:
      hami.io/vgpu-node: node-a
      example.com/slices-allocated: "dev-1,SLICE,1024,25:dev-1,SLICE,1024,25:;"
      example.com/slices: "0:dev-1:slice=1;0:dev-1:slice=0;0:dev-9:slice=0;"
  spec:
    nodeName: node-a
    containers: [{name: c, resources: {limits: {example.com/slice: "2"}}}]
  status: {phase: Running}
)";

TEST(LedgerPartitions, ATestVendorsFamilyIsExported) {
  PartitionEnv env(HAMI_SLICES_FIXTURE_DIR, {{"slices", "slices.so", HAMI_KIND_DEVICE, "{}"}},
                   kSlicesCluster);
  const ClusterUsage usage = env.source->usage();
  ASSERT_EQ(usage.partition_families.size(), 1u);
  EXPECT_EQ(usage.partition_families[0].name, "example_slice_info");
  EXPECT_EQ(usage.partition_families[0].help, "Slices in use");
  const std::string text = env.metrics.scrape();
  EXPECT_EQ(family_text(text, "example_slice_info"),
            "# HELP example_slice_info Slices in use\n"
            "# TYPE example_slice_info gauge\n"
            "example_slice_info{device_index=\"1\",device_uuid=\"dev-1\",node=\"node-a\","
            "slice=\"slice=0\",zone=\"vGPU\"} 1\n"
            "example_slice_info{device_index=\"1\",device_uuid=\"dev-1\",node=\"node-a\","
            "slice=\"slice=1\",zone=\"vGPU\"} 1\n");
  // slices.so describes percent cores: raw values.
  EXPECT_EQ(
      parse_exposition(text).value("hami_gpu_core_allocated_ratio", {{"device_uuid", "dev-1"}}),
      50);
}

}  // namespace
