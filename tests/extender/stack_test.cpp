// The stack the application builds (config → cluster state, scheduler,
// health loop, admission view) over config/demo-cluster.yaml, walking the
// demo of docs/demo-walkthrough.md.
#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <sstream>

#include "cluster/file_cluster.hpp"
#include "extender/extender_service.hpp"
#include "extender/extender_stack.hpp"

namespace {

using namespace hami;

struct DemoStack : ::testing::Test {
  std::ostringstream log_sink;
  log::Logger logger{log::Level::warn, log::Format::text, &log_sink};
  host::HostServices services{[](int32_t, std::string_view, std::string_view) {},
                              [] { return int64_t{1'750'000'000}; }};
  host::PluginRegistry registry = host::PluginRegistry::load(
      {HAMI_PLUGIN_DIR, true},
      {{"nvidia", "nvidia.so", HAMI_KIND_DEVICE, "{}"},
       {"amd", "amd.so", HAMI_KIND_DEVICE, "{}"},
       {"hami-policies", "hami-policies.so", HAMI_KIND_SCHEDULING, "{}"}},
      services);
  config::HostConfig config = [] {
    config::HostConfig c;
    c.cluster.file = std::string(HAMI_SOURCE_DIR) + "/config/demo-cluster.yaml";
    return c;
  }();
};

constexpr const char* kAllNodes =
    R"("NodeNames":["gpu-a100-0","gpu-a100-1","gpu-t4-0","gpu-mi300x-0","cpu-0"])";

std::string pod_of(const cluster::ClusterState& cluster, const char* ns, const char* name) {
  // The pod as kube-scheduler would send it: the snapshot's own object.
  const auto* file = dynamic_cast<const cluster::FileClusterState*>(&cluster);
  rapidjson::Document list;
  list.Parse(file->to_json().c_str());
  for (const auto& item : list["items"].GetArray()) {
    if (std::string_view(item["kind"].GetString()) != "Pod")
      continue;
    const auto& meta = item["metadata"];
    if (std::string_view(meta["namespace"].GetString()) == ns &&
        std::string_view(meta["name"].GetString()) == name) {
      rapidjson::StringBuffer buffer;
      rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
      item.Accept(writer);
      return buffer.GetString();
    }
  }
  return "null";
}

TEST_F(DemoStack, DemoClusterFiltersAndBinds) {
  const auto stack = extender::make_extender_stack(config, registry, logger);
  EXPECT_EQ(stack->cluster->nodes().size(), 6u);
  EXPECT_EQ(stack->cluster->pods().size(), 9u);
  const extender::ExtenderService service(*stack->scheduler, &logger);

  const auto filter = service.filter(R"({"Pod":)" + pod_of(*stack->cluster, "ml", "demo-infer") +
                                     "," + kAllNodes + "}");
  EXPECT_EQ(
      filter.body,
      R"({"Nodes":null,"NodeNames":["gpu-a100-0","gpu-a100-1","gpu-t4-0"],"FailedNodes":null,)"
      R"("FailedAndUnresolvableNodes":{"cpu-0":"node unregistered",)"
      R"("gpu-mi300x-0":"NodeInsufficientDevice"},"Error":""})");
  const auto prioritize =
      service.prioritize(R"({"Pod":)" + pod_of(*stack->cluster, "ml", "demo-infer") +
                         R"(,"NodeNames":["gpu-a100-0","gpu-a100-1","gpu-t4-0"]})");
  EXPECT_EQ(prioritize.body, R"([{"Host":"gpu-a100-0","Score":1},{"Host":"gpu-a100-1","Score":4},)"
                             R"({"Host":"gpu-t4-0","Score":2}])");
  const auto bind = service.bind(
      R"({"PodName":"demo-infer","PodNamespace":"ml","PodUID":"5e7c2d4a-0000-4000-8000-000000000001","Node":"gpu-a100-1"})");
  EXPECT_EQ(bind.body, R"({"Error":""})");
  const auto pod = stack->cluster->pod("ml", "demo-infer");
  EXPECT_EQ(pod->node_name, "gpu-a100-1");
  EXPECT_EQ(pod->annotation("hami.io/vgpu-devices-allocated"),
            "GPU-1a2b3c4d-0001-4000-8000-a10000000001,NVIDIA,8000,30:;");

  const auto rocm = service.filter(R"({"Pod":)" + pod_of(*stack->cluster, "rocm", "demo-rocm") +
                                   "," + kAllNodes + "}");
  EXPECT_NE(rocm.body.find(R"("NodeNames":["gpu-mi300x-0"])"), std::string::npos) << rocm.body;
  // gpu-a100-1 is locked by demo-infer until its device plugin releases it.
  EXPECT_EQ(
      service.bind(R"({"PodName":"demo-rocm","PodNamespace":"rocm","Node":"gpu-a100-1"})").body,
      R"({"Error":"node gpu-a100-1 has been locked within 5m0s: node lock contention"})");
  EXPECT_EQ(
      service.bind(R"({"PodName":"demo-rocm","PodNamespace":"rocm","Node":"gpu-mi300x-0"})").body,
      R"({"Error":""})");
  // Spread: the idle MI300X, 32 GiB, every CU (no cores asked → 100 %).
  EXPECT_EQ(stack->cluster->pod("rocm", "demo-rocm")->annotation("hami.io/amd-devices-allocated"),
            "AMD-MI300X-9f2c1b7e-2200,AMD Instinct MI300X VF,32768,304:;");

  // The admission view sees ml's quota and the ledger's usage (demo-infer
  // included now).
  const auto quota = stack->admission_view->quota("ml");
  ASSERT_TRUE(quota);
  EXPECT_EQ(quota->hard.at("nvidia.com/gpumem"), 200000);
  // llm-infer-0, train-0, etl-0 (its init container's peak), embed-mig-0
  // (a 3g.20gb instance), demo-infer.
  EXPECT_EQ(quota->used.at("nvidia.com/gpumem"), 20000 + 2 * 40960 + 16384 + 19968 + 8000);
}

TEST_F(DemoStack, DemoMigPodGetsFreePlacements) {
  // Step 7 of the walkthrough.
  const auto stack = extender::make_extender_stack(config, registry, logger);
  const extender::ExtenderService service(*stack->scheduler, &logger);
  const auto filter = service.filter(
      R"({"Pod":)" + pod_of(*stack->cluster, "ml", "demo-mig") +
      R"(,"NodeNames":["gpu-a100-0","gpu-a100-1","gpu-t4-0","gpu-mi300x-0","gpu-a100-mig-0","cpu-0"]})");
  EXPECT_EQ(filter.body,
            R"({"Nodes":null,"NodeNames":["gpu-a100-mig-0"],"FailedNodes":{)"
            R"("gpu-a100-0":"4/4 CardTypeMismatch","gpu-a100-1":"4/4 CardTypeMismatch",)"
            R"("gpu-t4-0":"2/2 CardTypeMismatch"},"FailedAndUnresolvableNodes":{)"
            R"("cpu-0":"node unregistered","gpu-mi300x-0":"NodeInsufficientDevice"},"Error":""})");
  EXPECT_EQ(
      service
          .bind(
              R"({"PodName":"demo-mig","PodNamespace":"ml","PodUID":"5e7c2d4a-0000-4000-8000-000000000003","Node":"gpu-a100-mig-0"})")
          .body,
      R"({"Error":""})");
  const auto pod = stack->cluster->pod("ml", "demo-mig");
  const std::string gpu1 = "GPU-7c1e4b2a-9d3f-4e6a-8b5c-a100m1g00001";
  EXPECT_EQ(pod->annotation("hami.io/vgpu-devices-allocated"),
            gpu1 + ",NVIDIA,9856,28:" + gpu1 + ",NVIDIA,9856,28:;");
  EXPECT_EQ(pod->annotation("hami.io/vgpu-mig-allocations"),
            R"([{"containerIndex":0,"deviceIndex":0,"gpuUUID":")" + gpu1 +
                R"(","profile":"2g.10gb","placement":{"start":0,"size":2}},)"
                R"({"containerIndex":0,"deviceIndex":1,"gpuUUID":")" +
                gpu1 + R"(","profile":"2g.10gb","placement":{"start":2,"size":2}}])");
  // Usage: two slots of GPU 1 (one per instance), GPU 0 keeps embed-mig-0.
  const auto snapshot = stack->scheduler->ledger().read();
  const auto* node = snapshot->node("gpu-a100-mig-0");
  ASSERT_NE(node, nullptr);
  ASSERT_EQ(node->use.size(), 2u);  // vendors nvidia, amd
  ASSERT_EQ(node->use[0].size(), 2u);
  EXPECT_EQ(node->use[0][0].used, 1);
  EXPECT_EQ(node->use[0][0].memory_mib, 19968);
  EXPECT_EQ(node->use[0][1].used, 2);
  EXPECT_EQ(node->use[0][1].memory_mib, 2 * 9856);
  EXPECT_EQ(node->use[0][1].cores, 2 * 28);
}

TEST_F(DemoStack, KubernetesSourceWithoutAUsableKubeconfigFailsClearly) {
  config.cluster.source = config::ClusterSource::kubernetes;
  config.cluster.kubernetes.kubeconfig = "/nonexistent/hami/kubeconfig";
  try {
    extender::make_extender_stack(config, registry, logger);
    FAIL();
  } catch (const kube::ApiConfigError& e) {
    EXPECT_STREQ(e.what(), "kubeconfig /nonexistent/hami/kubeconfig: cannot be read");
  }
}

TEST_F(DemoStack, EmptySnapshotPathIsAnEmptyCluster) {
  config.cluster.file.clear();
  const auto stack = extender::make_extender_stack(config, registry, logger);
  EXPECT_TRUE(stack->cluster->nodes().empty());
}

}  // namespace
