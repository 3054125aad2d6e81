// ABI 1.0 compatibility (HAMI-HOST-4): vintage.so, built against the frozen
// 1.0 headers, loads in this host, reads as a 1.0 plugin (the 1.1 members
// at their defaults, the 1.1 calls absent) and schedules through the
// scheduling core: filter, bind, the allocation annotation its own
// encode_allocation wrote, and usage rebuilt from that annotation.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <atomic>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cluster/file_cluster.hpp"
#include "k8s/pod.hpp"
#include "plugins/host_services.hpp"
#include "plugins/plugin_errors.hpp"
#include "plugins/plugin_registry.hpp"
#include "scheduling/scheduler.hpp"

namespace {

using namespace hami;

constexpr int64_t kNow = 1'750'000'000;

// Two devices: gpu-0 of 4 GiB, gpu-1 of 16 GiB, four slots each.
constexpr const char* kNode = R"(
kind: List
items:
- kind: Node
  metadata:
    name: node-a
    annotations:
      example.com/vintage-register: "gpu-0,Vintage V1,4096,4;gpu-1,Vintage V1,16384,4"
)";

// The allocation the fixture encodes for a pod whose init container takes
// nothing and whose app container takes 12000 MiB and 30 % of gpu-1.
constexpr const char* kAllocation = ";gpu-1,Vintage V1,12000,30:;";

struct VintageEnv {
  std::atomic<int64_t> now{kNow};
  host::HostServices services{[](int32_t, std::string_view, std::string_view) {},
                              [this] { return now.load(); }};
  host::PluginRegistry registry;
  std::unique_ptr<cluster::FileClusterState> cluster;
  std::unique_ptr<scheduling::Scheduler> scheduler;

  explicit VintageEnv(std::string_view yaml) {
    const host::LoaderOptions loader{HAMI_ABI_1_0_FIXTURE_DIR, true};
    registry = host::PluginRegistry::load(
        loader, {{"old-vendor", "vintage.so", HAMI_KIND_DEVICE, "{}"}}, services);
    cluster = cluster::FileClusterState::from_text(yaml, "vintage.yaml");
    scheduling::SchedulerOptions options;
    options.allocate_at = scheduling::AllocateAt::Bind;
    options.clock = [this] { return now.load(); };
    scheduler = std::make_unique<scheduling::Scheduler>(*cluster, registry.devices(),
                                                        registry.scheduling(), options);
  }
  ~VintageEnv() { scheduler.reset(); }

  const host::DevicePluginHandle& vintage() const { return registry.devices()[0]; }

  std::string annotation(std::string_view name, std::string_view key) const {
    const auto pod = cluster->pod("ml", name);
    if (!pod)
      return "<no pod>";
    const auto v = pod->annotation(key);
    return v ? std::string(*v) : "<none>";
  }

  // Stores a pending pod with an init container without devices and one
  // app container with `limits` (JSON members), and filters it on node-a.
  scheduling::FilterOutcome add_and_filter(std::string_view name, std::string_view limits) {
    const std::string json = R"({"kind":"Pod","metadata":{"name":")" + std::string(name) +
                             R"(","namespace":"ml","uid":"uid-)" + std::string(name) +
                             R"("},"spec":{"schedulerName":"hami-scheduler",)"
                             R"("initContainers":[{"name":"setup"}],)"
                             R"("containers":[{"name":"main","resources":{"limits":{)" +
                             std::string(limits) + R"(}}}]},"status":{"phase":"Pending"}})";
    rapidjson::Document doc;
    doc.Parse(json.c_str());
    if (doc.HasParseError())
      throw std::invalid_argument("bad pod json in test");
    cluster->upsert(doc);
    const k8s::PodModel model(doc);
    const std::vector<std::string> nodes = {"node-a"};
    return scheduler->filter(model, nodes);
  }
};

TEST(Abi10Compat, LoadsAndListsAsAnAbi10Plugin) {
  VintageEnv env(kNode);
  ASSERT_EQ(env.registry.devices().size(), 1u);
  const host::PluginInfo& info = env.vintage().info();
  EXPECT_EQ(info.name, "vintage");
  EXPECT_EQ(info.version, "1.0.0");
  EXPECT_EQ(info.abi_major, 1);
  EXPECT_EQ(info.abi_minor, 0);
  EXPECT_EQ(info.flags, 0u);
  ASSERT_EQ(env.registry.summary().size(), 1u);
  const host::PluginSummary& line = env.registry.summary()[0];
  EXPECT_EQ(line.name, "old-vendor");
  EXPECT_EQ(line.plugin_name, "vintage");
  EXPECT_EQ(line.kind, "device");
  EXPECT_EQ(line.version, "1.0.0");
  EXPECT_EQ(line.abi_version, "1.0");
  EXPECT_EQ(line.file.filename(), "vintage.so");
}

TEST(Abi10Compat, DescriptionHasThe10ValuesAndThe11Defaults) {
  VintageEnv env(kNode);
  const host::DeviceDescription& d = env.vintage().description();
  EXPECT_EQ(d.vendor, "VINTAGE");
  EXPECT_EQ(d.count_resource, "example.com/vintage");
  EXPECT_EQ(d.memory_resource, "example.com/vintage-mem");
  EXPECT_EQ(d.memory_percent_resource, "example.com/vintage-mem-percentage");
  EXPECT_EQ(d.cores_resource, "example.com/vintage-cores");
  EXPECT_EQ(d.priority_resource, "");
  EXPECT_EQ(d.register_annotation, "example.com/vintage-register");
  EXPECT_EQ(d.handshake_annotation, "");
  EXPECT_EQ(d.to_allocate_annotation, "example.com/vintage-to-allocate");
  EXPECT_EQ(d.allocated_annotation, "example.com/vintage-allocated");
  EXPECT_EQ(d.memory_factor, 1);
  // Members appended in 1.1, which a 1.0 plugin never writes.
  EXPECT_EQ(d.cores_unit, HAMI_CORES_PERCENT);
  EXPECT_EQ(d.vendor_flags, 0u);
  EXPECT_FALSE(d.multi_pick());
  EXPECT_TRUE(d.allocation_annotations.empty());
  EXPECT_TRUE(d.partition_metrics.empty());
}

TEST(Abi10Compat, The11CallsAreAbsent) {
  VintageEnv env(kNode);
  const host::DevicePluginHandle& vintage = env.vintage();
  EXPECT_FALSE(vintage.reads_pods());
  const std::string json =
      R"({"kind":"Pod","metadata":{"name":"p","namespace":"ml","uid":"uid-p","annotations":)"
      R"({"example.com/vintage-allocated":";gpu-1,Vintage V1,12000,30:;"}},)"
      R"("spec":{"containers":[{"name":"main"}]}})";
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  ASSERT_FALSE(doc.HasParseError());
  const k8s::PodModel pod(doc);
  const host::PodAllocation allocation = {{}, {{"gpu-1", "Vintage V1", 12000, 30, 1, ""}}};
  // No annotate_allocation: no further annotations; no describe_partitions:
  // no partitions; no decode_pod_allocation: the host may not ask.
  EXPECT_TRUE(vintage.annotate_allocation(pod.view(), "node-a", allocation, kNow).empty());
  EXPECT_TRUE(vintage.describe_partitions(pod.view()).empty());
  try {
    (void)vintage.decode_pod_allocation(pod.view());
    FAIL() << "decode_pod_allocation was called on a 1.0 plugin";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "decode_pod_allocation: the plugin does not implement it");
  }
}

k8s::PodModel one_container_pod(std::string_view limits) {
  const std::string json =
      R"({"kind":"Pod","metadata":{"name":"p","namespace":"ml","uid":"uid-p"},)"
      R"("spec":{"containers":[{"name":"main","resources":{"limits":{)" +
      std::string(limits) + "}}}]}}";
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  if (doc.HasParseError())
    throw std::invalid_argument("bad pod json in test");
  return k8s::PodModel(doc);
}

TEST(Abi10Compat, AdmissionAndRequestsGoThroughThe10Calls) {
  VintageEnv env(kNode);
  const host::DevicePluginHandle& vintage = env.vintage();
  const auto defaulted = one_container_pod(R"("example.com/vintage":"2")");
  const host::ContainerMutation m = vintage.mutate_container(defaulted.view(), 0);
  EXPECT_TRUE(m.uses_device);
  using Pairs = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(m.limits, (Pairs{{"example.com/vintage-mem", "2048"}}));
  EXPECT_EQ(m.env, (Pairs{{"VINTAGE_VISIBLE", "all"}}));
  EXPECT_EQ(m.runtime_class, std::nullopt);
  const host::RequestResult whole = vintage.container_request(defaulted.view(), 0);
  EXPECT_EQ(whole.warning, "");
  EXPECT_EQ(whole.request.count, 2);
  EXPECT_EQ(whole.request.memory_mib, 0);
  EXPECT_EQ(whole.request.memory_percent, 100);
  EXPECT_EQ(whole.request.cores, 0);

  const auto sized =
      one_container_pod(R"("example.com/vintage":"1","example.com/vintage-mem-percentage":"25",)"
                        R"("example.com/vintage-cores":"40")");
  EXPECT_EQ(vintage.mutate_container(sized.view(), 0).limits, Pairs{});
  const host::RequestResult r = vintage.container_request(sized.view(), 0);
  EXPECT_EQ(r.request.count, 1);
  EXPECT_EQ(r.request.memory_percent, 25);
  EXPECT_EQ(r.request.cores, 40);

  const auto zero = one_container_pod(R"("example.com/vintage":"0")");
  try {
    (void)vintage.mutate_container(zero.view(), 0);
    FAIL() << "a count of 0 was admitted";
  } catch (const host::PluginCallError& e) {
    EXPECT_EQ(e.status(), HAMI_INVALID_ARGUMENT);
    EXPECT_STREQ(e.what(), "old-vendor.mutate_container: example.com/vintage must be at least 1");
  }
  const auto bad =
      one_container_pod(R"("example.com/vintage":"1","example.com/vintage-cores":"x")");
  const host::RequestResult refused = vintage.container_request(bad.view(), 0);
  EXPECT_EQ(refused.request.count, 0);
  EXPECT_EQ(refused.warning, "example.com/vintage-cores: not a percentage");
}

TEST(Abi10Compat, FiltersBindsAndWritesTheAllocationItsEncodeProduces) {
  VintageEnv env(kNode);
  const auto out =
      env.add_and_filter("p", R"("example.com/vintage":"1","example.com/vintage-mem":"12000",)"
                              R"("example.com/vintage-cores":"30")");
  ASSERT_EQ(out.error, "");
  EXPECT_EQ(out.fit, (std::vector<size_t>{0}));
  EXPECT_TRUE(out.failed.empty());
  ASSERT_EQ(env.scheduler->bind("ml", "p", "uid-p", "node-a"), "");

  // The bytes the fixture's encode_allocation makes of the same placement.
  const hami_alloc_device gpu1{
      sizeof(hami_alloc_device), {"gpu-1", 5}, {"Vintage V1", 10}, 12000, 30};
  const hami_container_alloc containers[2] = {{nullptr, 0}, {&gpu1, 1}};
  const std::string encoded = env.vintage().encode_allocation(containers);
  EXPECT_EQ(encoded, kAllocation);
  EXPECT_EQ(env.annotation("p", "example.com/vintage-to-allocate"), kAllocation);
  EXPECT_EQ(env.annotation("p", "example.com/vintage-allocated"), kAllocation);
  EXPECT_EQ(env.annotation("p", "hami.io/vgpu-node"), "node-a");
  EXPECT_EQ(env.annotation("p", "hami.io/bind-phase"), "allocating");

  const auto snapshot = env.scheduler->ledger().read();
  const scheduling::PodCharge* charge = snapshot->pod("uid-p");
  ASSERT_NE(charge, nullptr);
  EXPECT_EQ(charge->node, "node-a");
  const std::vector<scheduling::DeviceCharge> expected = {{0, "gpu-1", 1, 12000, 30, {}}};
  EXPECT_EQ(charge->devices, expected);
}

TEST(Abi10Compat, ANodeWithoutRoomFailsWithTheFixturesReason) {
  VintageEnv env(kNode);
  // p takes 12000 MiB and 30 % of gpu-1.
  ASSERT_EQ(
      env.add_and_filter("p", R"("example.com/vintage":"1","example.com/vintage-mem":"12000",)"
                              R"("example.com/vintage-cores":"30")")
          .fit.size(),
      1u);
  ASSERT_EQ(env.scheduler->bind("ml", "p", "uid-p", "node-a"), "");
  ASSERT_EQ(env.annotation("p", "example.com/vintage-allocated"), kAllocation);
  // gpu-0 is too small for 9000 MiB, gpu-1 has 4384 MiB left.
  const auto out =
      env.add_and_filter("q", R"("example.com/vintage":"1","example.com/vintage-mem":"9000")");
  EXPECT_TRUE(out.fit.empty());
  ASSERT_EQ(out.failed.count("node-a"), 1u);
  EXPECT_EQ(out.failed.at("node-a"), "2/2 CardInsufficientMemory");
  // 4200 MiB and 80 % of the cores: too much memory for gpu-0, too many
  // cores for gpu-1 (30 % are taken).
  const auto mixed =
      env.add_and_filter("s", R"("example.com/vintage":"1","example.com/vintage-mem":"4200",)"
                              R"("example.com/vintage-cores":"80")");
  EXPECT_TRUE(mixed.fit.empty());
  ASSERT_EQ(mixed.failed.count("node-a"), 1u);
  EXPECT_EQ(mixed.failed.at("node-a"), "1/2 CardInsufficientCore, 1/2 CardInsufficientMemory");
  // 4000 MiB and all of a device's cores: the idle gpu-0 takes it.
  const auto fits =
      env.add_and_filter("r", R"("example.com/vintage":"1","example.com/vintage-mem":"4000",)"
                              R"("example.com/vintage-cores":"100")");
  EXPECT_EQ(fits.fit, (std::vector<size_t>{0}));
  EXPECT_TRUE(fits.failed.empty());
}

TEST(Abi10Compat, UsageIsRebuiltFromThePodsAllocationAnnotation) {
  VintageEnv env(std::string(kNode) + R"(
- kind: Pod
  metadata:
    name: running
    namespace: ml
    uid: uid-running
    annotations:
      hami.io/vgpu-node: node-a
      example.com/vintage-allocated: ";gpu-1,Vintage V1,12000,30:;"
  spec:
    nodeName: node-a
    schedulerName: hami-scheduler
    initContainers: [{name: setup}]
    containers: [{name: main, resources: {limits: {example.com/vintage: "1"}}}]
  status: {phase: Running}
)");
  // decode_allocation reads back what encode_allocation wrote.
  const host::PodAllocation decoded = env.vintage().decode_allocation(kAllocation);
  const host::PodAllocation expected = {{}, {{"gpu-1", "Vintage V1", 12000, 30, 0, ""}}};
  EXPECT_EQ(decoded, expected);
  {
    const auto snapshot = env.scheduler->ledger().read();
    const scheduling::PodCharge* charge = snapshot->pod("uid-running");
    ASSERT_NE(charge, nullptr);
    const std::vector<scheduling::DeviceCharge> devices = {{0, "gpu-1", 1, 12000, 30, {}}};
    EXPECT_EQ(charge->devices, devices);
    const scheduling::NodeEntry* node = snapshot->node("node-a");
    ASSERT_NE(node, nullptr);
    ASSERT_EQ(node->use.size(), 1u);
    ASSERT_EQ(node->use[0].size(), 2u);
    EXPECT_EQ(node->use[0][0].used, 0);
    EXPECT_EQ(node->use[0][0].memory_mib, 0);
    EXPECT_EQ(node->use[0][1].used, 1);
    EXPECT_EQ(node->use[0][1].memory_mib, 12000);
    EXPECT_EQ(node->use[0][1].cores, 30);
  }
  // The rebuilt usage is what fit sees: 4384 MiB are left on gpu-1.
  const auto out =
      env.add_and_filter("q", R"("example.com/vintage":"1","example.com/vintage-mem":"9000")");
  ASSERT_EQ(out.failed.count("node-a"), 1u);
  EXPECT_EQ(out.failed.at("node-a"), "2/2 CardInsufficientMemory");
}

}  // namespace
