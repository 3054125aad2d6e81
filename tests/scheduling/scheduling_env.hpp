// Test environment for the scheduling core: the real device plugins
// (nvidia.so, amd.so) and hami-policies.so loaded from the build's plugin
// folder, a file-backed cluster built from YAML text, a movable clock.
#pragma once

#include <rapidjson/document.h>

#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/file_cluster.hpp"
#include "k8s/pod.hpp"
#include "plugins/host_services.hpp"
#include "plugins/plugin_registry.hpp"
#include "scheduling/scheduler.hpp"

namespace hami::testing {

inline constexpr int64_t kStartTime = 1'750'000'000;

struct SchedulingEnv {
  std::atomic<int64_t> now{kStartTime};
  host::HostServices services{[](int32_t, std::string_view, std::string_view) {},
                              [this] { return now.load(); }};
  host::PluginRegistry registry;
  std::unique_ptr<cluster::FileClusterState> cluster;
  std::unique_ptr<scheduling::Scheduler> scheduler;

  // `cluster_yaml`: the snapshot. `nvidia_config`: the nvidia plugin's JSON.
  explicit SchedulingEnv(std::string_view cluster_yaml, scheduling::SchedulerOptions options = {},
                         std::string nvidia_config = "{}") {
    host::LoaderOptions loader{HAMI_PLUGIN_DIR, true};
    std::vector<host::PluginSpec> specs = {
        {"nvidia", "nvidia.so", HAMI_KIND_DEVICE, std::move(nvidia_config)},
        {"amd", "amd.so", HAMI_KIND_DEVICE, "{}"},
        {"hami-policies", "hami-policies.so", HAMI_KIND_SCHEDULING, "{}"},
    };
    registry = host::PluginRegistry::load(loader, specs, services);
    cluster = cluster::FileClusterState::from_text(cluster_yaml, "test-cluster.yaml");
    if (!options.clock)
      options.clock = [this] { return now.load(); };
    scheduler = std::make_unique<scheduling::Scheduler>(*cluster, registry.devices(),
                                                        registry.scheduling(), std::move(options));
  }
  ~SchedulingEnv() { scheduler.reset(); }

  std::string annotation(std::string_view ns, std::string_view name, std::string_view key) const {
    const auto pod = cluster->pod(ns, name);
    if (!pod)
      return "<no pod>";
    const auto v = pod->annotation(key);
    return v ? std::string(*v) : "<none>";
  }
};

inline k8s::PodModel pod_from_json(std::string_view json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError())
    throw std::invalid_argument("bad pod json in test");
  return k8s::PodModel(doc);
}

// A node registering `gpus` NVIDIA devices "<prefix>-<i>" of `memory` MiB,
// count 10, cores 100, NUMA 0 for the first half.
std::string nvidia_node(std::string_view name, int gpus, int64_t memory = 40960,
                        std::string_view type = "NVIDIA A100-SXM4-40GB",
                        std::string_view extra_annotations = "");

// A node (YAML list item) registering one AMD Instinct MI300X VF "amd-0":
// 196608 MiB, 304 compute units, split count 4.
std::string mi300x_node(std::string_view name);

// A pending pod (YAML list item) asking each app container for the given
// nvidia.com/* limits, e.g. {{"nvidia.com/gpu","1"},{"nvidia.com/gpumem","1000"}}.
using Limits = std::vector<std::pair<std::string, std::string>>;
std::string pod_json(std::string_view ns, std::string_view name, std::string_view uid,
                     const std::vector<Limits>& app, const std::vector<Limits>& init = {},
                     std::string_view annotations_json = "{}");

}  // namespace hami::testing
