// Scheduler::preempt against an exhaustive oracle: on small random nodes
// (fixed seeds) the answer is, among every set of lower-priority pods whose
// removal lets the pod pass filter, one with the smallest key by
// kube-scheduler's ranking; a node where even removing them all does not
// help is dropped. The oracle removes pods from the cluster and asks the
// real filter, so it shares only the fit with the code under test.
// Also the search itself on a synthetic fit: the budget, the classes.
#include "scheduling/preemption.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "scheduling_env.hpp"

namespace {

using namespace hami;
using namespace hami::testing;
using scheduling::VictimRank;

struct RunningPod {
  std::string name;
  std::string uid;
  int priority = 0;
  int day = 1;      // started 2025-01-<day>
  int device = -1;  // -1: holds no device
  int memory = 0;
  int cores = 0;
  std::string json;
};

std::string pod_text(const RunningPod& p, std::string_view node) {
  const std::string annotations =
      p.device < 0 ? std::string("{}")
                   : R"({"hami.io/vgpu-node":")" + std::string(node) +
                         R"(","hami.io/vgpu-devices-allocated":"GPU-)" + std::string(node) + "-" +
                         std::to_string(p.device) + ",NVIDIA," + std::to_string(p.memory) + "," +
                         std::to_string(p.cores) + R"(:;"})";
  std::string pod =
      pod_json("ml", p.name, p.uid, {{{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "1000"}}}, {},
               annotations);
  pod.replace(pod.find(R"("schedulerName")"), 0,
              R"("nodeName":")" + std::string(node) + R"(","priority":)" +
                  std::to_string(p.priority) + ",");
  pod.replace(
      pod.find(R"("phase":"Pending")"), 17,
      R"("phase":"Running","startTime":"2025-01-0)" + std::to_string(p.day) + R"(T00:00:00Z")");
  return pod;
}

void upsert(SchedulingEnv& env, const std::string& json) {
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  ASSERT_FALSE(doc.HasParseError()) << json;
  env.cluster->upsert(doc);
}

VictimRank rank_of(const RunningPod& p) {
  // 2025-01-01T00:00:00Z
  return {p.priority, 1735689600 + int64_t{p.day - 1} * 86400};
}

TEST(PreemptionProperty, SmallestFittingSetOnRandomNodes) {
  constexpr int kPendingPriority = 100;
  const std::vector<int> priorities = {0, 0, 10, 50, 200};
  size_t kept_nodes = 0;
  size_t dropped_nodes = 0;
  size_t with_extras = 0;
  for (uint32_t seed = 1; seed <= 60; ++seed) {
    std::mt19937 rng(seed);
    const auto pick = [&rng](int lo, int hi) {
      return std::uniform_int_distribution<int>(lo, hi)(rng);
    };
    const int gpus = pick(1, 3);
    SchedulingEnv env("kind: List\nitems:\n" + nvidia_node("n", gpus, 8000));
    std::vector<int> free_memory(static_cast<size_t>(gpus), 8000);
    std::vector<int> free_cores(static_cast<size_t>(gpus), 100);
    std::vector<RunningPod> pods;
    const int count = pick(2, 6);
    for (int i = 0; i < count; ++i) {
      RunningPod p;
      p.name = "p" + std::to_string(i);
      p.uid = "uid-" + p.name;
      p.priority =
          priorities[static_cast<size_t>(pick(0, static_cast<int>(priorities.size()) - 1))];
      p.day = pick(1, 3);
      p.device = pick(0, gpus - 1);
      p.memory = 500 * pick(1, 10);
      p.cores = 20 * pick(0, 3);
      const auto d = static_cast<size_t>(p.device);
      if (p.memory > free_memory[d] || p.cores > free_cores[d])
        continue;
      free_memory[d] -= p.memory;
      free_cores[d] -= p.cores;
      p.json = pod_text(p, "n");
      upsert(env, p.json);
      pods.push_back(p);
    }
    // kube-scheduler's proposal: a pod holding no device, and sometimes
    // one lower-priority GPU pod too.
    RunningPod hog{"hog", "uid-hog", pick(0, 1) * 20, 3, -1, 0, 0, ""};
    hog.json = pod_text(hog, "n");
    upsert(env, hog.json);
    std::vector<RunningPod> proposed = {hog};
    std::vector<RunningPod> eligible;
    for (const RunningPod& p : pods) {
      if (p.priority >= kPendingPriority)
        continue;
      if (proposed.size() == 1 && pick(0, 3) == 0)
        proposed.push_back(p);
      else
        eligible.push_back(p);
    }

    std::string pending = pod_json("ml", "want", "uid-want",
                                   {{{"nvidia.com/gpu", "1"},
                                     {"nvidia.com/gpumem", std::to_string(1000 * pick(2, 8))},
                                     {"nvidia.com/gpucores", std::to_string(10 * pick(0, 8))}}});
    pending.replace(pending.find(R"("schedulerName")"), 0,
                    R"("priority":)" + std::to_string(kPendingPriority) + ",");
    const k8s::PodModel pending_pod = pod_from_json(pending);

    // The oracle: every subset of the eligible pods.
    const std::vector<std::string> node = {"n"};
    const auto fits_without = [&](const std::vector<const RunningPod*>& gone) {
      for (const RunningPod* p : gone)
        env.cluster->delete_pod("ml", p->name);
      const bool fits = !env.scheduler->filter(pending_pod, node).fit.empty();
      for (const RunningPod* p : gone)
        upsert(env, p->json);
      return fits;
    };
    const auto key_of = [&](const std::vector<const RunningPod*>& set) {
      std::vector<VictimRank> ranks;
      for (const RunningPod* p : set)
        ranks.push_back(rank_of(*p));
      return scheduling::victim_set_key(ranks);
    };
    std::optional<scheduling::VictimSetKey> best;
    const size_t n = eligible.size();
    for (uint32_t mask = 0; mask < (1u << n); ++mask) {
      std::vector<const RunningPod*> gone;
      for (const RunningPod& p : proposed)
        gone.push_back(&p);
      for (size_t i = 0; i < n; ++i) {
        if (mask & (1u << i))
          gone.push_back(&eligible[i]);
      }
      if (!fits_without(gone))
        continue;
      const auto key = key_of(gone);
      if (!best || key < *best)
        best = key;
    }

    scheduling::PreemptionCandidate candidate{"n", {}, 0};
    for (const RunningPod& p : proposed)
      candidate.victims.push_back({p.uid, std::nullopt});
    const std::vector<scheduling::PreemptionCandidate> candidates = {candidate};
    const auto outcome = env.scheduler->preempt(pending_pod, candidates);
    ASSERT_TRUE(outcome.error.empty()) << outcome.error;
    EXPECT_EQ(outcome.inexact, 0u) << "seed " << seed;
    if (!best) {
      EXPECT_TRUE(outcome.nodes.empty()) << "seed " << seed;
      EXPECT_EQ(outcome.dropped.count("n"), 1u) << "seed " << seed;
      ++dropped_nodes;
      continue;
    }
    ASSERT_EQ(outcome.nodes.size(), 1u) << "seed " << seed;
    ++kept_nodes;
    std::vector<const RunningPod*> answer;
    std::vector<VictimRank> listed;
    for (const std::string& uid : outcome.nodes[0].uids) {
      const RunningPod* found = nullptr;
      for (const auto* list : {&proposed, &eligible}) {
        for (const RunningPod& p : *list) {
          if (p.uid == uid)
            found = &p;
        }
      }
      ASSERT_NE(found, nullptr) << "seed " << seed << ": " << uid << " is no lower-priority pod";
      answer.push_back(found);
      listed.push_back(rank_of(*found));
    }
    for (const RunningPod& p : proposed) {
      EXPECT_NE(std::find(answer.begin(), answer.end(), &p), answer.end())
          << "seed " << seed << ": kube-scheduler's " << p.uid << " left out";
    }
    with_extras += answer.size() > proposed.size() ? 1u : 0u;
    EXPECT_TRUE(fits_without(answer)) << "seed " << seed;
    EXPECT_EQ(key_of(answer), *best) << "seed " << seed;
    // Most important first, as kube-scheduler lists victims.
    EXPECT_TRUE(std::is_sorted(listed.begin(), listed.end(), scheduling::more_important))
        << "seed " << seed;
  }
  // The seeds cover each outcome.
  EXPECT_GT(kept_nodes, 10u);
  EXPECT_GT(dropped_nodes, 3u);
  EXPECT_GT(with_extras, 10u);
}

TEST(PreemptionSearch, KeyFollowsPickOneNodeForPreemption) {
  using K = scheduling::VictimSetKey;
  const auto key = [](std::vector<VictimRank> v) { return scheduling::victim_set_key(v); };
  // A lower highest priority wins over fewer pods.
  EXPECT_LT(key({{0, 5}, {0, 6}, {0, 7}}), key({{1, 5}}));
  // Then the sum of priorities (offset by 2^31): two pods at -2^31 beat one at 0.
  EXPECT_LT(key({{INT32_MIN, 5}, {INT32_MIN, 5}, {0, 5}}), key({{0, 5}, {0, 6}}));
  // Then fewer pods; then the later earliest start of the top priority.
  EXPECT_LT(key({{3, 5}}), key({{3, 7}, {3, 8}}));
  EXPECT_LT(key({{3, 7}, {3, 8}}), key({{3, 5}, {3, 9}}));
  const K none = key({});
  EXPECT_EQ(none.count, 0u);
  EXPECT_LT(none, key({{INT32_MIN, VictimRank::kNotStarted}}));
}

TEST(PreemptionSearch, InterchangeablePodsAreCountedNotEnumerated) {
  // 40 identical pods of 100 units each; the pod needs 1,250 units freed:
  // 13 of them. Without classes the sets of up to 12 pods (~10^10) would
  // outrun any budget; with one class the walk is 13 steps.
  scheduling::VictimSearch search;
  search.candidates.assign(40, VictimRank{0, 1});
  search.class_of.assign(40, 0);
  size_t calls = 0;
  search.fits = [&calls](std::span<const size_t> chosen) {
    ++calls;
    return chosen.size() * 100u >= 1250u;
  };
  const auto choice = scheduling::choose_victims(search);
  EXPECT_TRUE(choice.found);
  EXPECT_TRUE(choice.exact);
  EXPECT_EQ(choice.chosen.size(), 13u);
  EXPECT_EQ(calls, choice.fit_calls);
}

TEST(PreemptionSearch, BudgetKeepsTheGreedyAnswerUnproven) {
  // 20 distinct pods; the reprieve (most important first) keeps the big
  // early ones and evicts many small ones; the smallest set is one big pod.
  scheduling::VictimSearch search;
  std::vector<int> size;
  for (int i = 0; i < 20; ++i) {
    search.candidates.push_back({0, 100 + i});
    size.push_back(i < 2 ? 1000 : 60);
  }
  search.fits = [&size](std::span<const size_t> chosen) {
    int freed = 0;
    for (const size_t c : chosen)
      freed += size[c];
    return freed >= 1000;
  };
  search.budget = 5;
  auto choice = scheduling::choose_victims(search);
  EXPECT_TRUE(choice.found);
  EXPECT_FALSE(choice.exact);
  EXPECT_GT(choice.chosen.size(), 1u);
  search.budget = 100000;
  choice = scheduling::choose_victims(search);
  EXPECT_TRUE(choice.exact);
  EXPECT_EQ(choice.chosen, (std::vector<size_t>{1}));  // the later start of the two
}

}  // namespace
