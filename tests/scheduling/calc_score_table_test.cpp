// HAMi's Test_calcScore table (pkg/scheduler/score_test.go, reference §8.4)
// with HAMi's inputs and expected devices, through the scheduler with the
// real plugins in both allocation modes. Many cases leave devices tied
// (same usage, all on NUMA 0): HAMi then tries the last registered device
// first, which is what these expectations pin. The Kunlun cases have no
// counterpart here (no Kunlun plugin).
#include <gtest/gtest.h>

#include <map>

#include "scheduling_env.hpp"

namespace {

using namespace hami;
using namespace hami::testing;
using scheduling::AllocateAt;
using scheduling::SchedulerOptions;

// One registered device of HAMi's DeviceUsage: NUMA 0, type NVIDIA.
struct Dev {
  std::string id;
  int index = 0;
  int count = 10;
  int64_t memory = 8000;
  int cores = 100;
};

// Usage already on a device: `used` tasks holding `memory` MiB and `cores`.
struct Use {
  std::string node;
  std::string id;
  int used = 1;
  int64_t memory = 0;
  int cores = 0;
};

std::string node_item(const std::string& name, const std::vector<Dev>& devices) {
  std::string reg = "[";
  int total = 0;
  for (const Dev& d : devices) {
    if (reg.size() > 1)
      reg += ",";
    reg += R"({"id":")" + d.id + R"(","index":)" + std::to_string(d.index) + R"(,"count":)" +
           std::to_string(d.count) + R"(,"devmem":)" + std::to_string(d.memory) + R"(,"devcore":)" +
           std::to_string(d.cores) + R"(,"type":"NVIDIA","health":true})";
    total += d.count;
  }
  reg += "]";
  return "- kind: Node\n  metadata:\n    name: " + name +
         "\n    annotations:\n      hami.io/node-nvidia-register: '" + reg +
         "'\n  status: {allocatable: {nvidia.com/gpu: \"" + std::to_string(total) + "\"}}\n";
}

// A running pod of `use.used` containers; the first holds the memory and
// cores, so the device counts `used` slots.
std::string usage_item(const Use& use, int n) {
  std::string allocated;
  std::string containers;
  for (int c = 0; c < use.used; ++c) {
    allocated += use.id + ",NVIDIA," + std::to_string(c == 0 ? use.memory : 0) + "," +
                 std::to_string(c == 0 ? use.cores : 0) + ":;";
    containers += std::string(c == 0 ? "" : ", ") + "{name: c" + std::to_string(c) + "}";
  }
  const std::string name = "running-" + std::to_string(n);
  return "- kind: Pod\n  metadata:\n    name: " + name + "\n    namespace: default\n    uid: uid-" +
         name + "\n    annotations:\n      hami.io/vgpu-node: " + use.node +
         "\n      hami.io/vgpu-devices-allocated: \"" + allocated +
         "\"\n  spec:\n    nodeName: " + use.node + "\n    containers: [" + containers +
         "]\n  status: {phase: Running}\n";
}

Limits gpu(int count, int memory, int cores) {
  return {{"nvidia.com/gpu", std::to_string(count)},
          {"nvidia.com/gpumem", std::to_string(memory)},
          {"nvidia.com/gpucores", std::to_string(cores)}};
}
const Limits kNone = {{"cpu", "1"}};

struct Case {
  std::string name;
  std::string gpu_policy;
  std::vector<std::pair<std::string, std::vector<Dev>>> nodes;
  std::vector<Use> usage;
  std::vector<Limits> app;
  std::vector<Limits> init;
  // Per node: the allocation annotation HAMi's devices encode to, or the
  // failure reason when `fails`.
  std::map<std::string, std::string> want;
  bool fails = false;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

const Dev kUuid1{"uuid1"};
const Dev kUuid2{"uuid2"};

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"OneDevice",
       "spread",
       {{"node1", {kUuid1}}},
       {},
       {gpu(1, 1000, 30)},
       {},
       {{"node1", "uuid1,NVIDIA,1000,30:;"}}},
      {"OneDeviceAlreadyUsed",
       "spread",
       {{"node1", {kUuid1}}},
       {{"node1", "uuid1", 5, 4000, 50}},
       {gpu(1, 1000, 30)},
       {},
       {{"node1", "uuid1,NVIDIA,1000,30:;"}}},
      // Tied idle devices: the last registered one.
      {"TwoIdleDevicesOneRequest",
       "spread",
       {{"node1", {kUuid1, kUuid2}}},
       {},
       {gpu(1, 1000, 30)},
       {},
       {{"node1", "uuid2,NVIDIA,1000,30:;"}}},
      // HAMi's devices have 7500 MiB used and no task; here usage always
      // holds a slot, which does not change the outcome.
      {"InitContainerLargerThanAnyDevice",
       "binpack",
       {{"node1", {kUuid1, {"uuid2", 1}}}},
       {{"node1", "uuid1", 1, 7500}, {"node1", "uuid2", 1, 7500}},
       {gpu(1, 100, 30)},
       {gpu(1, 4000, 30)},
       {{"node1", "2/2 CardInsufficientMemory"}},
       true},
      {"SpreadAvoidsTheHalfUsedDevice",
       "spread",
       {{"node1", {kUuid1, kUuid2}}},
       {{"node1", "uuid2", 5, 4000, 50}},
       {gpu(1, 1000, 30)},
       {},
       {{"node1", "uuid1,NVIDIA,1000,30:;"}}},
      {"TwoIdleDevicesTwoCards",
       "spread",
       {{"node1", {kUuid1, kUuid2}}},
       {},
       {gpu(2, 1000, 30)},
       {},
       {{"node1", "uuid2,NVIDIA,1000,30:uuid1,NVIDIA,1000,30:;"}}},
      {"TwoEquallyUsedDevicesTwoCards",
       "spread",
       {{"node1", {kUuid1, kUuid2}}},
       {{"node1", "uuid1", 5, 4000, 50}, {"node1", "uuid2", 5, 4000, 50}},
       {gpu(2, 1000, 30)},
       {},
       {{"node1", "uuid2,NVIDIA,1000,30:uuid1,NVIDIA,1000,30:;"}}},
      {"TwoNodesOneDeviceEach",
       "spread",
       {{"node1", {kUuid1}}, {"node2", {kUuid2}}},
       {},
       {gpu(1, 1000, 30)},
       {},
       {{"node1", "uuid1,NVIDIA,1000,30:;"}, {"node2", "uuid2,NVIDIA,1000,30:;"}}},
      {"TwoNodesOneHalfUsed",
       "spread",
       {{"node1", {kUuid1}}, {"node2", {kUuid2}}},
       {{"node1", "uuid1", 5, 4000, 50}},
       {gpu(1, 1000, 30)},
       {},
       {{"node1", "uuid1,NVIDIA,1000,30:;"}, {"node2", "uuid2,NVIDIA,1000,30:;"}}},
      {"SecondContainerWithoutRequest",
       "binpack",
       {{"node1", {kUuid1}}},
       {},
       {gpu(1, 1000, 30), kNone},
       {},
       {{"node1", "uuid1,NVIDIA,1000,30:;;"}}},
      {"FirstContainerWithoutRequest",
       "binpack",
       {{"node1", {kUuid1}}},
       {},
       {kNone, gpu(1, 1000, 30)},
       {},
       {{"node1", ";uuid1,NVIDIA,1000,30:;"}}},
      {"MiddleContainerUsesTheDevice",
       "spread",
       {{"node1", {kUuid1}}},
       {},
       {kNone, gpu(1, 1000, 30), kNone},
       {},
       {{"node1", ";uuid1,NVIDIA,1000,30:;;"}}},
      // The first container fills the device it takes (the last registered,
      // on the tie); the second gets the other.
      {"SpreadTwoContainersDifferentDevices",
       "spread",
       {{"node1", {kUuid1, {"uuid2", 1}}}},
       {},
       {gpu(1, 8000, 30), gpu(1, 1000, 30)},
       {},
       {{"node1", "uuid2,NVIDIA,8000,30:;uuid1,NVIDIA,1000,30:;"}}},
      {"NotEnoughMemory",
       "spread",
       {{"node1", {{"uuid1", 0, 10, 50}}}},
       {},
       {gpu(1, 1000, 30)},
       {},
       {{"node1", "1/1 CardInsufficientMemory"}},
       true},
      {"TwoNodesFail",
       "spread",
       {{"node1", {{"uuid1", 0, 10, 50}}}, {"node2", {{"uuid2", 0, 10, 50}}}},
       {},
       {gpu(1, 1000, 30)},
       {},
       {{"node1", "1/1 CardInsufficientMemory"}, {"node2", "1/1 CardInsufficientMemory"}},
       true},
      // #1667: the first init container asks for nothing.
      {"FirstInitContainerWithoutRequest",
       "binpack",
       {{"node1", {kUuid1}}},
       {},
       {gpu(1, 1000, 30)},
       {kNone, gpu(1, 1000, 30)},
       {{"node1", ";uuid1,NVIDIA,1000,30:;uuid1,NVIDIA,1000,30:;"}}},
      // The init container's device is free again for the app container:
      // both take the last registered device of the tie.
      {"InitContainerCapacityReset",
       "binpack",
       {{"node1", {kUuid1, kUuid2}}},
       {},
       {gpu(1, 1000, 30)},
       {gpu(1, 1000, 30)},
       {{"node1", "uuid2,NVIDIA,1000,30:;uuid2,NVIDIA,1000,30:;"}}},
      {"InitContainerAsksMoreThanApp",
       "binpack",
       {{"node1", {kUuid1, kUuid2}}},
       {},
       {gpu(1, 1000, 30)},
       {gpu(2, 1000, 30)},
       {{"node1", "uuid2,NVIDIA,1000,30:uuid1,NVIDIA,1000,30:;uuid2,NVIDIA,1000,30:;"}}},
      // 80 of 100 cores used on each device (HAMi: with no task).
      {"InitContainerMoreCoresThanAnyDevice",
       "binpack",
       {{"node1", {kUuid1, {"uuid2", 1}}}},
       {{"node1", "uuid1", 1, 0, 80}, {"node1", "uuid2", 1, 0, 80}},
       {gpu(1, 1000, 10)},
       {gpu(1, 1000, 30)},
       {{"node1", "2/2 CardInsufficientCore"}},
       true},
      {"TwoNodesTwoContainers",
       "spread",
       {{"node1", {kUuid1}}, {"node2", {kUuid2}}},
       {},
       {gpu(1, 1000, 30), gpu(1, 1000, 40)},
       {},
       {{"node1", "uuid1,NVIDIA,1000,30:;uuid1,NVIDIA,1000,40:;"},
        {"node2", "uuid2,NVIDIA,1000,30:;uuid2,NVIDIA,1000,40:;"}}},
  };
  return all;
}

std::string cluster_yaml(const Case& c) {
  std::string yaml = "kind: List\nitems:\n";
  for (const auto& [name, devices] : c.nodes)
    yaml += node_item(name, devices);
  for (size_t i = 0; i < c.usage.size(); ++i)
    yaml += usage_item(c.usage[i], static_cast<int>(i));
  return yaml;
}

std::vector<std::string> node_names(const Case& c) {
  std::vector<std::string> names;
  for (const auto& n : c.nodes)
    names.push_back(n.first);
  return names;
}

void add_pod(SchedulingEnv& env, const std::string& json) {
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  env.cluster->upsert(doc);
}

SchedulerOptions options(const Case& c, AllocateAt mode) {
  SchedulerOptions o;
  o.allocate_at = mode;
  o.gpu_policy = c.gpu_policy;
  o.node_policy = "binpack";
  return o;
}

class HamiCalcScore : public ::testing::TestWithParam<Case> {};

// allocateAt: filter — the chosen node carries HAMi's devices for it.
TEST_P(HamiCalcScore, FilterMode) {
  const Case& c = GetParam();
  SchedulingEnv env(cluster_yaml(c), options(c, AllocateAt::Filter));
  const std::string json = pod_json("default", "p", "uid-p", c.app, c.init);
  add_pod(env, json);
  const std::vector<std::string> names = node_names(c);
  const auto out = env.scheduler->filter(pod_from_json(json), names);
  ASSERT_EQ(out.error, "");
  if (c.fails) {
    EXPECT_TRUE(out.fit.empty());
    EXPECT_EQ(out.failed, c.want);
    return;
  }
  ASSERT_EQ(out.fit.size(), 1u);
  const std::string& node = names[out.fit[0]];
  EXPECT_EQ(env.annotation("default", "p", "hami.io/vgpu-node"), node);
  EXPECT_EQ(env.annotation("default", "p", "hami.io/vgpu-devices-allocated"), c.want.at(node));
}

// allocateAt: bind — filter passes every node HAMi scores, and a bind to
// each of them allocates HAMi's devices for that node.
TEST_P(HamiCalcScore, BindMode) {
  const Case& c = GetParam();
  const std::string json = pod_json("default", "p", "uid-p", c.app, c.init);
  const std::vector<std::string> names = node_names(c);
  {
    SchedulingEnv env(cluster_yaml(c), options(c, AllocateAt::Bind));
    const auto out = env.scheduler->filter(pod_from_json(json), names);
    ASSERT_EQ(out.error, "");
    if (c.fails) {
      EXPECT_TRUE(out.fit.empty());
      EXPECT_EQ(out.failed, c.want);
      return;
    }
    EXPECT_EQ(out.fit.size(), names.size());
  }
  for (const auto& [node, allocated] : c.want) {
    SchedulingEnv env(cluster_yaml(c), options(c, AllocateAt::Bind));
    add_pod(env, json);
    ASSERT_EQ(env.scheduler->bind("default", "p", "uid-p", node), "") << node;
    EXPECT_EQ(env.annotation("default", "p", "hami.io/vgpu-devices-allocated"), allocated) << node;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, HamiCalcScore, ::testing::ValuesIn(cases()),
                         [](const auto& param_info) { return param_info.param.name; });

}  // namespace
