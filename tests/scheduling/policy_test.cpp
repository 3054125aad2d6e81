// HAMi's policy and scoring tests (reference §8.4, §8.5:
// pkg/scheduler/policy/*_test.go, util/device_scoring_weights_test.go,
// score_test.go) against hami-policies and the host's device score.
#include <gtest/gtest.h>

#include <algorithm>

#include "device_order.hpp"
#include "hami/device.h"
#include "scheduling/scoring_weights.hpp"
#include "scheduling_env.hpp"

namespace {

using hami::policies::DeviceFacts;
using hami::policies::hami_less;
using hami::policies::try_order;
using namespace hami::scheduling;

DeviceFacts d(double score, int32_t numa, uint32_t index = 0, int32_t used = 0) {
  return {score, numa, index, used};
}

// Creates pod `json` (namespace ns, name p) in the cluster of `yaml` and
// filters it over `nodes` in filter mode; "<chosen node> <allocation>".
std::string place_in_filter_mode(const std::string& yaml, SchedulerOptions options,
                                 const std::string& json, const std::vector<std::string>& nodes) {
  options.allocate_at = AllocateAt::Filter;
  hami::testing::SchedulingEnv env(yaml, options);
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  env.cluster->upsert(doc);
  const auto out = env.scheduler->filter(hami::testing::pod_from_json(json), nodes);
  EXPECT_EQ(out.fit.size(), 1u);
  return (out.fit.empty() ? std::string() : nodes[out.fit.front()]) + " " +
         env.annotation("ns", "p", "hami.io/vgpu-devices-allocated");
}

// TestDeviceUsageList_Less, case by case: Less(a, b).
TEST(DeviceOrder, SinglePolicyLessMatchesHami) {
  // binpack / spread: score first, NUMA only breaks ties (#1806).
  EXPECT_TRUE(hami_less("binpack", false, d(10, 0), d(20, 0)));
  EXPECT_TRUE(hami_less("binpack", false, d(10, 1), d(20, 0)));
  EXPECT_FALSE(hami_less("binpack", false, d(20, 0), d(10, 1)));
  EXPECT_TRUE(hami_less("binpack", false, d(10, 0), d(10, 1)));
  EXPECT_FALSE(hami_less("spread", false, d(10, 0), d(20, 0)));
  EXPECT_TRUE(hami_less("spread", false, d(20, 1), d(10, 0)));
  EXPECT_TRUE(hami_less("spread", false, d(10, 0), d(10, 1)));
  // Unknown single values behave like spread.
  EXPECT_FALSE(hami_less("topology-aware", false, d(10, 0), d(20, 0)));
  // numa-bind groups by NUMA: binpack higher NUMA first, spread lower first.
  EXPECT_TRUE(hami_less("binpack", true, d(10, 1), d(20, 0)));
  EXPECT_FALSE(hami_less("binpack", true, d(10, 0), d(20, 1)));
  EXPECT_TRUE(hami_less("binpack", true, d(10, 0), d(20, 0)));
  EXPECT_TRUE(hami_less("spread", true, d(20, 0), d(10, 1)));
  EXPECT_TRUE(hami_less("spread", true, d(20, 0), d(10, 0)));
  // mutex: busy devices first (idle at the tail), ties by lower NUMA.
  EXPECT_TRUE(hami_less("mutex", false, d(0, 0, 0, 3), d(0, 0, 1, 1)));
  EXPECT_FALSE(hami_less("mutex", false, d(0, 0, 0, 0), d(0, 0, 1, 1)));
  EXPECT_TRUE(hami_less("mutex", false, d(0, 0, 0, 1), d(0, 1, 1, 1)));
}

TEST(DeviceOrder, ChainsApplyKeysInWrittenOrder) {
  // "binpack,numa": score first, then NUMA ascending.
  EXPECT_TRUE(hami_less("binpack,numa", false, d(10, 1), d(20, 0)));
  EXPECT_TRUE(hami_less("binpack,numa", false, d(10, 0), d(10, 1)));
  // "numa,spread": NUMA first.
  EXPECT_TRUE(hami_less("numa,spread", false, d(10, 0), d(20, 1)));
  EXPECT_TRUE(hami_less("numa,spread", false, d(20, 0), d(10, 0)));
  // "spread,numa".
  EXPECT_TRUE(hami_less("spread,numa", false, d(20, 1), d(10, 0)));
  // Bare "numa" is a chain.
  EXPECT_TRUE(hami_less("numa", false, d(99, 0), d(0, 1)));
  // "mutex,spread": mutex is a filter, spread decides.
  EXPECT_TRUE(hami_less("mutex,spread", false, d(20, 0, 0, 5), d(10, 0, 1, 0)));
  // Only filters → spread.
  EXPECT_TRUE(hami_less("mutex,topology-aware", false, d(20, 0), d(10, 0)));
  // All keys equal → ascending device index.
  EXPECT_TRUE(hami_less("binpack,numa", false, d(5, 0, 1), d(5, 0, 2)));
  EXPECT_FALSE(hami_less("binpack,numa", false, d(5, 0, 2), d(5, 0, 1)));
  // numa-bind forces numa first even when the chain puts it later.
  EXPECT_TRUE(hami_less("binpack,numa", true, d(20, 0), d(10, 1)));
  EXPECT_TRUE(hami_less(" binpack , numa ", true, d(20, 0), d(10, 1)));
}

TEST(DeviceOrder, TryOrderIsHamisListWalkedFromTheEnd) {
  const std::vector<DeviceFacts> devices = {d(10, 0, 0), d(30, 0, 1), d(20, 1, 2)};
  // binpack sorts ascending (10, 20, 30) and tries 30 first.
  EXPECT_EQ(try_order("binpack", false, devices), (std::vector<size_t>{1, 2, 0}));
  EXPECT_EQ(try_order("spread", false, devices), (std::vector<size_t>{0, 2, 1}));
  // numa-bind binpack: NUMA 1 group at the front of HAMi's list, so NUMA 0
  // (tried first) fullest first.
  EXPECT_EQ(try_order("binpack", true, devices), (std::vector<size_t>{1, 0, 2}));
  // Chains with the index tie-break: higher index tried first on ties.
  const std::vector<DeviceFacts> tied = {d(5, 0, 0), d(5, 0, 1), d(5, 0, 2)};
  EXPECT_EQ(try_order("binpack,numa", false, tied), (std::vector<size_t>{2, 1, 0}));
  // Single values on full ties: HAMi's sort keeps registration order and its
  // Fit starts at the end, so the last registered device goes first (this
  // asserted {0, 1, 2}, registration order, before it followed HAMi).
  EXPECT_EQ(try_order("spread", false, tied), (std::vector<size_t>{2, 1, 0}));
}

// Ties under every policy: HAMi's list is a stable ascending sort by Less
// over registration order, walked from the end.
TEST(DeviceOrder, TiesGoLastRegisteredFirstUnderEveryPolicy) {
  const std::vector<DeviceFacts> idle = {d(5, 0, 0), d(5, 0, 1), d(5, 0, 2)};
  for (const char* policy :
       {"binpack", "spread", "mutex", "topology-aware", "unknown", "numa", "binpack,numa",
        "spread,numa", "numa,spread", "mutex,spread", "mutex,topology-aware"}) {
    for (const bool numa_bind : {false, true}) {
      EXPECT_EQ(try_order(policy, numa_bind, idle), (std::vector<size_t>{2, 1, 0}))
          << policy << " numa_bind=" << numa_bind;
    }
  }
  // Strict keys still decide; only equal devices keep the reversed order.
  // spread: descending score, so the two score-5 devices are tried first.
  const std::vector<DeviceFacts> pairs = {d(10, 0, 0), d(5, 0, 1), d(10, 0, 2), d(5, 0, 3)};
  EXPECT_EQ(try_order("spread", false, pairs), (std::vector<size_t>{3, 1, 2, 0}));
  EXPECT_EQ(try_order("binpack", false, pairs), (std::vector<size_t>{2, 0, 3, 1}));
  // mutex: idle devices first, busy ones after, each group last-registered first.
  const std::vector<DeviceFacts> busy = {d(0, 0, 0, 1), d(0, 0, 1), d(0, 0, 2, 1), d(0, 0, 3)};
  EXPECT_EQ(try_order("mutex", false, busy), (std::vector<size_t>{3, 1, 2, 0}));
  // numa-bind groups by NUMA (binpack: NUMA 0 tried first, spread: NUMA 1);
  // tied devices inside a group go last-registered first.
  const std::vector<DeviceFacts> numa = {d(5, 0, 0), d(5, 1, 1), d(5, 0, 2), d(5, 1, 3)};
  EXPECT_EQ(try_order("binpack", true, numa), (std::vector<size_t>{2, 0, 3, 1}));
  EXPECT_EQ(try_order("spread", true, numa), (std::vector<size_t>{3, 1, 2, 0}));
  // Chains break full ties by ascending registered index, so the highest
  // index is tried first whatever the registration order...
  const std::vector<DeviceFacts> indexed = {d(5, 0, 2), d(5, 0, 0), d(5, 0, 1)};
  EXPECT_EQ(try_order("binpack,numa", false, indexed), (std::vector<size_t>{0, 2, 1}));
  EXPECT_EQ(try_order("spread", false, indexed), (std::vector<size_t>{2, 1, 0}));
  // ...and equal indexes (TestDevices_Fit registers every device at index 0)
  // fall back to the reversed registration order.
  const std::vector<DeviceFacts> same_index = {d(5, 0, 0), d(5, 0, 0), d(5, 0, 0)};
  EXPECT_EQ(try_order("binpack,numa", false, same_index), (std::vector<size_t>{2, 1, 0}));
}

// HAMi's sort.Sort is an insertion sort up to 12 devices and pdqsort (not
// stable) beyond; the same stable rule holds here at every size, through
// both of try_order's sorts (insertion up to 32 devices, std::stable_sort
// beyond).
TEST(DeviceOrder, LargeNodesKeepTheSameTieRule) {
  for (const size_t n : {size_t{13}, size_t{32}, size_t{33}, size_t{64}}) {
    std::vector<DeviceFacts> devices;
    for (size_t i = 0; i < n; ++i)
      devices.push_back(d(i % 2 == 0 ? 10 : 5, 0, static_cast<uint32_t>(i)));
    // spread: the score-5 devices (odd positions) first, each group from the
    // highest position down.
    std::vector<size_t> want;
    for (size_t i = n; i-- > 0;) {
      if (i % 2 == 1)
        want.push_back(i);
    }
    for (size_t i = n; i-- > 0;) {
      if (i % 2 == 0)
        want.push_back(i);
    }
    EXPECT_EQ(try_order("spread", false, devices), want) << n;
  }
}

// The try order is HAMi's list reversed, for any facts: checked against a
// stable sort by hami_less on fixed pseudo-random inputs with many ties.
TEST(DeviceOrder, TryOrderIsTheReversedStableSortByLess) {
  uint32_t state = 12345;
  const auto next = [&state](uint32_t bound) {
    state = state * 1103515245u + 12345u;
    return (state >> 16) % bound;
  };
  for (int round = 0; round < 200; ++round) {
    std::vector<DeviceFacts> devices(1 + next(16));
    for (auto& f : devices) {
      f = d(static_cast<double>(next(3)), static_cast<int32_t>(next(2)), next(3),
            static_cast<int32_t>(next(2)));
    }
    for (const char* policy :
         {"binpack", "spread", "mutex", "numa", "binpack,numa", "numa,spread"}) {
      for (const bool numa_bind : {false, true}) {
        std::vector<size_t> want(devices.size());
        for (size_t i = 0; i < want.size(); ++i)
          want[i] = i;
        std::stable_sort(want.begin(), want.end(), [&](size_t x, size_t y) {
          return hami_less(policy, numa_bind, devices[x], devices[y]);
        });
        std::reverse(want.begin(), want.end());
        EXPECT_EQ(try_order(policy, numa_bind, devices), want) << policy << " round " << round;
      }
    }
  }
}

TEST(DeviceOrder, FlagsAndPolicyValidation) {
  EXPECT_EQ(hami::policies::fit_flags("spread"), 0u);
  EXPECT_EQ(hami::policies::fit_flags("mutex"), HAMI_FIT_MUTEX);
  EXPECT_EQ(hami::policies::fit_flags("binpack, topology-aware"), HAMI_FIT_TOPOLOGY_AWARE);
  EXPECT_EQ(hami::policies::fit_flags("mutex,topology-aware"),
            HAMI_FIT_MUTEX | HAMI_FIT_TOPOLOGY_AWARE);
  EXPECT_FALSE(hami::policies::policy_contains("mutexes", "mutex"));
  EXPECT_TRUE(hami::policies::known_device_policy("binpack,numa,mutex"));
  EXPECT_FALSE(hami::policies::known_device_policy("binpack,fast"));
  EXPECT_FALSE(hami::policies::known_device_policy(" , "));
}

TEST(NodeScore, BinpackPrefersBusySpreadPrefersIdle) {
  // TestComputeDefaultScore: zero capacity → 0 (spread mirrors it).
  EXPECT_EQ(hami::policies::node_score("binpack", 0, 0, 0, 0, 0, 0), 0);
  EXPECT_EQ(hami::policies::node_score("spread", 0, 0, 0, 0, 0, 0), 100);
  // (2/20 + 50/200 + 4000/16000) / 3 = 0.2 → 20.
  EXPECT_NEAR(hami::policies::node_score("binpack", 2, 20, 50, 200, 4000, 16000), 20.0, 1e-9);
  EXPECT_NEAR(hami::policies::node_score("spread", 2, 20, 50, 200, 4000, 16000), 80.0, 1e-9);
  EXPECT_EQ(hami::policies::node_score("binpack", 40, 20, 400, 200, 1, 1), 100);  // clamped
  EXPECT_LT(hami::policies::node_score("numa", 0, 1, 0, 1, 0, 1), 0);
}

// HAMi's OverrideScore (TestOverrideScore): node score = default score +
// vendor term, policy-neutral terms x10000 and negated under spread, which
// keeps the lowest; on node_score's scale (higher always preferred) that is
// +/- term x 100/30 and +10000 x neutral x 100/30.
TEST(NodeScore, VendorTermsAreAddedAsHamiOverrideScoreDoes) {
  using hami::policies::node_score_with_vendor_terms;
  EXPECT_EQ(node_score_with_vendor_terms("binpack", 20.0, 0, 0), 20.0);
  EXPECT_NEAR(node_score_with_vendor_terms("binpack", 20.0, 3.0, 0), 30.0, 1e-9);
  // HAMi spread prefers a lower default+term: a topology term counts
  // against the node, as HAMi adds it raw (X10, kept).
  EXPECT_NEAR(node_score_with_vendor_terms("spread", 80.0, 3.0, 0), 70.0, 1e-9);
  EXPECT_NEAR(node_score_with_vendor_terms("binpack", 20.0, 0, 0.5), 20.0 + 5000.0 * 100 / 30,
              1e-6);
  EXPECT_NEAR(node_score_with_vendor_terms("spread", 80.0, 0, 0.5), 80.0 + 5000.0 * 100 / 30, 1e-6);
  // An unknown policy stays an error (negative).
  EXPECT_LT(node_score_with_vendor_terms("numa", -1, 3.0, 1.0), 0);
}

TEST(ScoringWeights, ParsesValidAnnotations) {
  const auto w = std::get<ScoringWeights>(parse_scoring_weights("slot=1,core=2,memory=3"));
  EXPECT_EQ(w.slot, 1);
  EXPECT_EQ(w.core, 2);
  EXPECT_EQ(w.memory, 3);
  const auto r = std::get<ScoringWeights>(parse_scoring_weights(" memory = 0 , slot=0,core= 5 "));
  EXPECT_EQ(r.memory, 0);
  EXPECT_EQ(r.core, 5);
}

TEST(ScoringWeights, RejectsWithHamisMessages) {
  const auto msg = [](std::string_view v) {
    return std::get<std::string>(parse_scoring_weights(v));
  };
  const std::string p = "invalid hami.io/device-scoring-weights annotation ";
  EXPECT_EQ(msg("slot=1,core=1"), p + "\"slot=1,core=1\": expected slot, core, and memory weights");
  EXPECT_EQ(msg("slot=1,core,memory=1"),
            p + "\"slot=1,core,memory=1\": expected key=value entries");
  EXPECT_EQ(msg("slot=1,slot=2,memory=1"),
            p + "\"slot=1,slot=2,memory=1\": duplicate \"slot\" weight");
  EXPECT_EQ(msg("slot=x,core=1,memory=1"),
            p + "\"slot=x,core=1,memory=1\": \"slot\" weight must be an integer");
  EXPECT_EQ(msg("slot=-1,core=1,memory=1"),
            p + "\"slot=-1,core=1,memory=1\": \"slot\" weight must not be negative");
  EXPECT_EQ(msg("slot=1,core=1,disk=1"), p + "\"slot=1,core=1,disk=1\": unknown weight \"disk\"");
  EXPECT_EQ(msg("slot=0,core=0,memory=0"),
            p + "\"slot=0,core=0,memory=0\": at least one weight must be positive");
  EXPECT_EQ(msg("a\"b"), p + "\"a\\\"b\": expected slot, core, and memory weights");
}

TEST(DeviceScore, MatchesHamisComputeScore) {
  const ScoringWeights one;
  // TestComputeScore "no requests": used 2/10, cores 1/4, mem 2048/8192 → 7.
  EXPECT_DOUBLE_EQ(device_score(one, {}, 2, 10, 1, 4, 2048, 8192), 7.0);
  // Zero capacity → 0.
  EXPECT_EQ(device_score(one, {1, 1000, 0, 10}, 0, 0, 0, 100, 0, 8000), 0);
  // A request: one slot, 1 core, 1024 MiB → 10·(3/10 + 2/4 + 3072/8192) = 11.75.
  EXPECT_DOUBLE_EQ(device_score(one, {1, 1024, 0, 1}, 2, 10, 1, 4, 2048, 8192), 11.75);
  // Percentage requests use the device's memory: 50 % of 8192.
  EXPECT_DOUBLE_EQ(device_score(one, {1, 0, 50, 0}, 0, 10, 0, 4, 0, 8192), 10 * (0.1 + 0.5));
  // Weights (TestComputeScoreWithResourceWeights): memory ×3.
  EXPECT_DOUBLE_EQ(device_score({1, 1, 3}, {}, 2, 10, 1, 4, 2048, 8192), 10 * (0.2 + 0.25 + 0.75));
}

// Through the scheduler: weights change which device binpack fills.
TEST(DeviceScore, PodWeightsChangeThePreferredDevice) {
  using namespace hami::testing;
  // GPU-0: four tasks (four containers), little memory used; GPU-1: one
  // task, most memory.
  const std::string yaml = std::string(R"(
kind: List
items:
- kind: Node
  metadata:
    name: n1
    annotations:
      hami.io/node-nvidia-register: '[{"id":"GPU-0","count":10,"devmem":10000,"devcore":100,"type":"NVIDIA","health":true},{"id":"GPU-1","index":1,"count":10,"devmem":10000,"devcore":100,"type":"NVIDIA","health":true}]'
- kind: Pod
  metadata: {name: slots, namespace: ns, uid: u1, annotations: {hami.io/vgpu-node: n1, hami.io/vgpu-devices-allocated: "GPU-0,NVIDIA,100,0:;GPU-0,NVIDIA,100,0:;GPU-0,NVIDIA,100,0:;GPU-0,NVIDIA,100,0:;"}}
  spec: {containers: [{name: a}, {name: b}, {name: c}, {name: d}]}
- kind: Pod
  metadata: {name: mem, namespace: ns, uid: u2, annotations: {hami.io/vgpu-node: n1, hami.io/vgpu-devices-allocated: "GPU-1,NVIDIA,8000,0:;"}}
  spec: {containers: [{name: c}]}
)");
  SchedulerOptions options;
  options.allocate_at = AllocateAt::Filter;
  options.gpu_policy = "binpack";
  const auto run = [&](const std::string& weights) {
    return place_in_filter_mode(
        yaml, options,
        pod_json("ns", "p", "uid-p", {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "500"}}}, {},
                 R"({"hami.io/device-scoring-weights":")" + weights + R"("})"),
        {"n1"});
  };
  EXPECT_EQ(run("slot=1,core=0,memory=0"), "n1 GPU-0,NVIDIA,500,0:;");
  EXPECT_EQ(run("slot=0,core=0,memory=1"), "n1 GPU-1,NVIDIA,500,0:;");
}

// No policy configured: hami-policies' first names apply, HAMi's defaults
// (node binpack, GPU spread). n1 is busier than n2; on each node GPU-0 is
// busier than GPU-1, on n2 GPU-3 than GPU-2.
TEST(DefaultPolicies, ComeFromThePolicyPluginWhenTheConfigSetsNone) {
  using namespace hami::testing;
  const std::string yaml = std::string(R"(
kind: List
items:
- kind: Node
  metadata:
    name: n1
    annotations:
      hami.io/node-nvidia-register: '[{"id":"GPU-0","count":10,"devmem":10000,"devcore":100,"type":"NVIDIA","health":true},{"id":"GPU-1","index":1,"count":10,"devmem":10000,"devcore":100,"type":"NVIDIA","health":true}]'
- kind: Node
  metadata:
    name: n2
    annotations:
      hami.io/node-nvidia-register: '[{"id":"GPU-2","count":10,"devmem":10000,"devcore":100,"type":"NVIDIA","health":true},{"id":"GPU-3","index":1,"count":10,"devmem":10000,"devcore":100,"type":"NVIDIA","health":true}]'
- kind: Pod
  metadata: {name: busy, namespace: ns, uid: u1, annotations: {hami.io/vgpu-node: n1, hami.io/vgpu-devices-allocated: "GPU-0,NVIDIA,8000,50:;"}}
  spec: {containers: [{name: c}]}
- kind: Pod
  metadata: {name: light, namespace: ns, uid: u2, annotations: {hami.io/vgpu-node: n2, hami.io/vgpu-devices-allocated: "GPU-3,NVIDIA,1000,0:;"}}
  spec: {containers: [{name: c}]}
)");
  const auto place = [&](const SchedulerOptions& options) {
    return place_in_filter_mode(
        yaml, options,
        pod_json("ns", "p", "uid-p", {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "500"}}}),
        {"n1", "n2"});
  };
  SchedulerOptions defaults;
  defaults.allocate_at = AllocateAt::Filter;
  EXPECT_EQ(place(defaults), "n1 GPU-1,NVIDIA,500,0:;");
  SchedulerOptions swapped = defaults;
  swapped.node_policy = "spread";
  swapped.gpu_policy = "binpack";
  EXPECT_EQ(place(swapped), "n2 GPU-3,NVIDIA,500,0:;");
}

}  // namespace
