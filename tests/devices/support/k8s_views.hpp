// Test builders for the borrowed C views plugins read (hami_pod_view,
// hami_node_view) and for fit input. Each fixture owns its strings; view()
// rebuilds the arrays, so call it after the last change and keep the fixture
// alive while the view is in use.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "hami/device.h"
#include "hami/objects.h"

namespace hami::testing {

using Pairs = std::vector<std::pair<std::string, std::string>>;

struct ContainerSpec {
  std::string name = "main";
  bool init = false;
  Pairs limits;
  Pairs requests;
  Pairs env;
};

class PodFixture {
 public:
  PodFixture() = default;
  PodFixture(const PodFixture&) = delete;
  PodFixture& operator=(const PodFixture&) = delete;

  PodFixture& name(std::string ns, std::string pod_name);
  PodFixture& annotation(std::string key, std::string value);
  PodFixture& runtime_class(std::string name);
  // Init containers are kept before app containers whatever the call order.
  PodFixture& container(ContainerSpec spec);

  const hami_pod_view& view();

 private:
  std::string namespace_ = "default";
  std::string name_ = "pod";
  std::string runtime_class_;
  Pairs annotations_;
  std::vector<ContainerSpec> containers_;
  // Rebuilt by view().
  std::deque<std::vector<hami_kv>> kv_storage_;
  std::vector<hami_kv> annotation_kv_;
  std::vector<hami_container_view> container_views_;
  hami_pod_view view_{};
};

class NodeFixture {
 public:
  NodeFixture() = default;
  NodeFixture(const NodeFixture&) = delete;
  NodeFixture& operator=(const NodeFixture&) = delete;

  explicit NodeFixture(std::string name) : name_(std::move(name)) {}
  NodeFixture& annotation(std::string key, std::string value);
  NodeFixture& allocatable(std::string resource, std::string quantity);
  NodeFixture& capacity(std::string resource, std::string quantity);

  const hami_node_view& view();

 private:
  std::string name_ = "node-1";
  Pairs annotations_;
  Pairs allocatable_;
  Pairs capacity_;
  std::vector<hami_kv> a_, al_, c_;
  hami_node_view view_{};
};

// One device on a node plus its current usage, for fit.
struct DeviceState {
  std::string id;
  std::string type = "NVIDIA";
  std::string mode;
  std::int32_t count = 10;
  std::int64_t memory_mib = 0;
  std::int32_t cores = 100;
  std::int32_t numa = 0;
  bool healthy = true;
  bool cordoned = false;
  std::uint32_t index = 0;
  std::int32_t used = 0;
  std::int64_t used_memory_mib = 0;
  std::int32_t used_cores = 0;
};

struct PairScoreSpec {
  std::string from;
  std::string to;
  std::int32_t score;
};

// Owns devices, usage and pair scores and produces a hami_fit_input whose
// device order is the vector order (index 0 tried first).
class FitFixture {
 public:
  explicit FitFixture(std::vector<DeviceState> devices, std::vector<PairScoreSpec> scores = {});
  FitFixture(const FitFixture&) = delete;
  FitFixture& operator=(const FitFixture&) = delete;

  // Symmetric pair scores from a score table "a->b = s" given once per pair.
  static std::vector<PairScoreSpec> symmetric(
      const std::vector<std::tuple<std::string, std::string, std::int32_t>>& table);

  hami_fit_input input(const hami_pod_view& pod, const hami_device_request& request,
                       std::uint32_t policy_flags = 0, const hami_quota_hook* quota = nullptr,
                       std::size_t container_index = 0);

  const DeviceState& device(std::size_t i) const { return states_.at(i); }

 private:
  std::vector<DeviceState> states_;
  std::vector<PairScoreSpec> score_specs_;
  std::vector<hami_device> devices_;
  std::vector<hami_device_usage> usage_;
  std::vector<hami_pair_score> scores_;
  hami_device_request request_{};
};

hami_device_request make_request(std::int32_t count, std::int64_t memory_mib,
                                 std::int32_t memory_percent, std::int32_t cores);

}  // namespace hami::testing
