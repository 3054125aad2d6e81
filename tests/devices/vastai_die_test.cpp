// vastai.so's die mode through its ABI: a registration's custominfo
// (DeviceStrategy, AIC) decoded into device attributes, then fit and
// score_placement on those devices. HAMi's TestDevices_Fit die-mode mutex
// cases and TestComputeBestCombination with HAMi's values, HAMi §11.7's
// ScoreNode, and the decisions on §11.9a (kept), §11.9b (fixed) and X10
// (kept).
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "device_under_test.hpp"
#include "k8s_views.hpp"
#include "vastai_fit.hpp"

namespace hami::testing {
namespace {

constexpr const char* kRegister = "hami.io/node-va-register";
constexpr const char* kDie = R"({"DeviceStrategy":"die","AIC":")";

// `{"DeviceStrategy":"die","AIC":"<card>"}`
std::string die_on(const std::string& card) {
  return kDie + card + "\"}";
}

struct Die {
  std::string id;
  std::string custominfo;  // the JSON value of custominfo; "" = none
  std::int32_t used = 0;
  std::int32_t count = 1;
};

struct DieFit {
  bool fits = false;
  std::string reason;
  std::vector<std::string> ids;  // picked, in pick order
};

// A node's devices as vastai.so decodes them from one registration, offered
// to fit in the order given (index 0 tried first; HAMi's list reversed, so
// the LAST one decides die mode) and to score_placement in the same order.
class DieNode {
 public:
  DieNode(const DeviceUnderTest& dut, const std::vector<Die>& dies) : dut_(dut) {
    std::string reg = "[";
    for (std::size_t i = 0; i < dies.size(); ++i) {
      const Die& d = dies[i];
      reg += (i == 0 ? "" : ",");
      reg += R"({"id":")" + d.id + R"(","index":)" + std::to_string(i) + R"(,"count":)" +
             std::to_string(d.count) + R"(,"devmem":16384,"type":"Vastai","health":true)";
      if (!d.custominfo.empty())
        reg += R"(,"custominfo":)" + d.custominfo;
      reg += "}";
    }
    reg += "]";
    NodeFixture node("node-1");
    node.annotation(kRegister, reg);
    records_ = dut.plugin().decode_node(node.view()).devices;
    for (const Die& d : dies)
      used_.push_back(d.used);
    rebuild();
  }

  const std::string& attributes(std::size_t i) const { return records_.at(i).attributes; }
  void set_attributes(std::size_t i, std::string text) {
    records_.at(i).attributes = std::move(text);
    rebuild();
  }

  DieFit fit(std::int32_t count, std::uint32_t flags = 0, Pairs annotations = {}) {
    PodFixture pod;
    for (auto& [k, v] : annotations)
      pod.annotation(std::move(k), std::move(v));
    pod.container({});
    const hami_device_request req = make_request(count, 0, 100, 0);
    hami_fit_input in{};
    in.struct_size = sizeof in;
    in.pod = &pod.view();
    in.request = &req;
    in.devices = usage_.data();
    in.devices_len = usage_.size();
    in.policy_flags = flags;
    std::vector<hami_fit_pick> picks(static_cast<std::size_t>(std::max(count, 1)));
    const FitResult r = dut_.plugin().fit(in, picks);
    DieFit out{r.fits, r.reason, {}};
    for (std::size_t p = 0; p < r.picks_len; ++p) {
      out.ids.push_back(records_.at(picks[p].device).id);
      EXPECT_EQ(std::string_view(picks[p].type.ptr, picks[p].type.len), "Vastai");
      EXPECT_EQ(picks[p].memory_mib, 0);
      EXPECT_EQ(picks[p].cores, 0);
    }
    return out;
  }

  // The pod's placement: device ids per container (init first).
  host::PlacementScore score(const std::vector<std::vector<std::string>>& containers,
                             std::string_view policy = "binpack") {
    PodAllocation allocation;
    for (const auto& ids : containers) {
      allocation.emplace_back();
      for (const std::string& id : ids)
        allocation.back().push_back(AllocDevice{id, "Vastai", 0, 0, 0, ""});
    }
    PodFixture pod;
    pod.container({});
    return dut_.plugin().score_placement(pod.view(), "node-1", policy, usage_, allocation);
  }

 private:
  void rebuild() {
    devices_.clear();
    usage_.clear();
    for (const DeviceRecord& r : records_) {
      hami_device d{};
      d.struct_size = sizeof d;
      d.id = {r.id.data(), r.id.size()};
      d.type = {r.type.data(), r.type.size()};
      d.mode = {r.mode.data(), r.mode.size()};
      d.index = r.index;
      d.count = r.count;
      d.memory_mib = r.memory_mib;
      d.cores = r.cores;
      d.numa = r.numa;
      d.flags = r.flags;
      d.attributes = {r.attributes.data(), r.attributes.size()};
      devices_.push_back(d);
    }
    for (std::size_t i = 0; i < devices_.size(); ++i)
      usage_.push_back(hami_device_usage{sizeof(hami_device_usage), &devices_[i], used_[i], 0, 0});
  }

  const DeviceUnderTest& dut_;
  std::vector<DeviceRecord> records_;
  std::vector<std::int32_t> used_;
  std::vector<hami_device> devices_;
  std::vector<hami_device_usage> usage_;
};

using Ids = std::vector<std::string>;

// ---- TestDevices_Fit, the two die-mode cases (HAMi order reversed) ----

TEST(VastaiDieFit, MutexDieModeRejectsIdleDieOnOccupiedCardPicksDieOnFreeCard) {
  const DeviceUnderTest dut("vastai");
  DieNode node(dut, {{"dev-2", die_on("2")}, {"dev-1", die_on("1")}, {"dev-0", die_on("1"), 1, 2}});
  const DieFit f = node.fit(1, HAMI_FIT_MUTEX);
  EXPECT_TRUE(f.fits);
  EXPECT_EQ(f.ids, Ids{"dev-2"});
}

TEST(VastaiDieFit, MutexDieModeRejectsAllIdleDiesOnOccupiedCard) {
  const DeviceUnderTest dut("vastai");
  DieNode node(dut, {{"dev-1", die_on("1")}, {"dev-0", die_on("1"), 1, 2}});
  const DieFit f = node.fit(1, HAMI_FIT_MUTEX);
  EXPECT_FALSE(f.fits);
  EXPECT_EQ(f.reason, "2/2 ExclusiveDeviceAllocateConflict");
}

TEST(VastaiDieFit, WithoutMutexAUsedDieIsSharedByCount) {
  const DeviceUnderTest dut("vastai");
  DieNode node(dut, {{"dev-1", die_on("1"), 1, 1}, {"dev-0", die_on("1"), 1, 2}});
  const DieFit f = node.fit(1);
  EXPECT_TRUE(f.fits);
  EXPECT_EQ(f.ids, Ids{"dev-0"});
  EXPECT_EQ(node.fit(2).reason,
            "1/2 AllocatedCardsInsufficientRequest, 1/2 CardTimeSlicingExhausted");
}

// ---- TestComputeBestCombination's rows, through fit (collection order =
// try order) ----

TEST(VastaiDieFit, ComputeBestCombinationSingleGroup) {
  const DeviceUnderTest dut("vastai");
  DieNode node(dut, {{"dev1", die_on("1")}, {"dev2", die_on("1")}, {"dev3", die_on("1")}});
  const DieFit f = node.fit(2);
  EXPECT_TRUE(f.fits);
  EXPECT_EQ(f.ids, (Ids{"dev1", "dev2"}));
}

TEST(VastaiDieFit, ComputeBestCombinationLargestGroupFirst) {
  const DeviceUnderTest dut("vastai");
  DieNode node(dut, {{"dev1", die_on("1")},
                     {"dev2", die_on("1")},
                     {"dev3", die_on("1")},
                     {"dev4", die_on("2")},
                     {"dev5", die_on("2")},
                     {"dev6", die_on("3")}});
  EXPECT_EQ(node.fit(3).ids, (Ids{"dev1", "dev2", "dev3"}));
  EXPECT_EQ(node.fit(4).ids, (Ids{"dev1", "dev2", "dev3", "dev4"}));
  EXPECT_EQ(node.fit(6).ids, (Ids{"dev1", "dev2", "dev3", "dev4", "dev5", "dev6"}));
}

TEST(VastaiDieFit, ComputeBestCombinationTooFewDiesFails) {
  // HAMi's fourth row asks computeBestCombination for 5 of 3 dies; in Fit
  // that is too few collected.
  const DeviceUnderTest dut("vastai");
  DieNode node(dut, {{"dev1", die_on("1")}, {"dev2", die_on("1")}, {"dev3", die_on("2")}});
  const DieFit f = node.fit(5);
  EXPECT_FALSE(f.fits);
  EXPECT_EQ(f.reason, "3/3 AllocatedCardsInsufficientRequest");
}

TEST(VastaiDieFit, PrefersDiesOfOneCardOverTryOrder) {
  const DeviceUnderTest dut("vastai");
  DieNode node(dut, {{"a1", die_on("A")}, {"b1", die_on("B")}, {"b2", die_on("B")}});
  EXPECT_EQ(node.fit(2).ids, (Ids{"b1", "b2"}));
  // One die: the first collected, not the best card (HAMi).
  EXPECT_EQ(node.fit(1).ids, Ids{"a1"});
}

TEST(VastaiDieFit, EqualAicGroupsFirstCollectedWinsFixes11_9b) {
  // HAMi orders equal-size groups by Go map iteration (random); here the
  // group whose first die comes first in try order wins, every time.
  const DeviceUnderTest dut("vastai");
  DieNode ab(dut,
             {{"a1", die_on("A")}, {"b1", die_on("B")}, {"a2", die_on("A")}, {"b2", die_on("B")}});
  for (int round = 0; round < 5; ++round)
    EXPECT_EQ(ab.fit(3).ids, (Ids{"a1", "a2", "b1"}));
  DieNode ba(dut,
             {{"b1", die_on("B")}, {"a1", die_on("A")}, {"b2", die_on("B")}, {"a2", die_on("A")}});
  EXPECT_EQ(ba.fit(3).ids, (Ids{"b1", "b2", "a1"}));
}

TEST(VastaiDieFit, DieWithoutAicIsItsOwnGroupFixesShortAllocation) {
  // HAMi's computeBestCombination drops dies without a string AIC and can
  // then "fit" with fewer devices than requested.
  const DeviceUnderTest dut("vastai");
  DieNode node(dut, {{"n1", R"({"DeviceStrategy":"die"})"},
                     {"a1", die_on("A")},
                     {"x1", R"({"DeviceStrategy":"die","AIC":7})"},
                     {"a2", die_on("A")}});
  const DieFit f = node.fit(3);
  EXPECT_TRUE(f.fits);
  EXPECT_EQ(f.ids, (Ids{"a1", "a2", "n1"}));
}

TEST(VastaiDieFit, DieModeFromTheLastDeviceInTryOrderKeeps11_9a) {
  // HAMi reads die mode from its first device (our last). With a whole
  // card last, the mixed node is not in die mode: mutex then ignores cards
  // and the walk stops at the first passing die.
  const DeviceUnderTest dut("vastai");
  DieNode card_last(
      dut,
      {{"d2", die_on("A")}, {"d1", die_on("A"), 1, 2}, {"c1", R"({"DeviceStrategy":"card"})"}});
  EXPECT_EQ(card_last.attributes(2), "4:card-");
  const DieFit plain = card_last.fit(1, HAMI_FIT_MUTEX);
  EXPECT_TRUE(plain.fits);
  EXPECT_EQ(plain.ids, Ids{"d2"});

  DieNode die_last(dut, {{"c1", ""}, {"d2", die_on("A")}, {"d1", die_on("A"), 1, 2}});
  const DieFit die = die_last.fit(1, HAMI_FIT_MUTEX);
  EXPECT_TRUE(die.fits);
  EXPECT_EQ(die.ids, Ids{"c1"});
  EXPECT_EQ(die_last.fit(2, HAMI_FIT_MUTEX).reason,
            "1/3 AllocatedCardsInsufficientRequest, 2/3 ExclusiveDeviceAllocateConflict");
}

TEST(VastaiDieFit, UuidSelectorsApplyToDies) {
  const DeviceUnderTest dut("vastai");
  DieNode node(dut, {{"a1", die_on("A")}, {"a2", die_on("A")}, {"b1", die_on("B")}});
  const DieFit f = node.fit(1, 0, {{"vastaitech.com/nouse-gpuuuid", "a1, a2"}});
  EXPECT_EQ(f.ids, Ids{"b1"});
  const DieFit g = node.fit(2, 0, {{"vastaitech.com/use-gpuuuid", "b1"}});
  EXPECT_FALSE(g.fits);
  EXPECT_EQ(g.reason, "1/3 AllocatedCardsInsufficientRequest, 2/3 CardUuidMismatch");
}

TEST(VastaiDieFit, MalformedAttributesAreInvalidArgument) {
  const DeviceUnderTest dut("vastai");
  DieNode node(dut, {{"a1", die_on("A")}, {"a2", die_on("A")}});
  for (const char* bad : {"die", "--", "3:di", "03:die-", "3:die1:0x", "-", "4:card"}) {
    node.set_attributes(0, bad);
    try {
      static_cast<void>(node.fit(1));
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const CallError& e) {
      EXPECT_EQ(e.status(), HAMI_INVALID_ARGUMENT) << bad;
    }
  }
}

// ---- TestComputeBestCombination, the helper itself with HAMi's rows ----

using Cards = std::vector<std::optional<std::string_view>>;
using Positions = std::vector<std::size_t>;

TEST(VastaiBestCombination, TestComputeBestCombination) {
  using devices::vastai::best_combination;
  EXPECT_EQ(best_combination(Cards{"1", "1", "1"}, 2), (Positions{0, 1}));
  const Cards groups{"1", "1", "1", "2", "2", "3"};
  EXPECT_EQ(best_combination(groups, 3), (Positions{0, 1, 2}));
  EXPECT_EQ(best_combination(groups, 4), (Positions{0, 1, 2, 3}));
  EXPECT_EQ(best_combination(Cards{"1", "1", "2"}, 5), (Positions{0, 1, 2}));
}

TEST(VastaiBestCombination, GroupsInterleavedInCollectionOrder) {
  using devices::vastai::best_combination;
  EXPECT_EQ(best_combination(Cards{"2", "1", "2", "1", "1"}, 4), (Positions{1, 3, 4, 0}));
  EXPECT_EQ(best_combination(Cards{std::nullopt, "1", std::nullopt}, 3), (Positions{0, 1, 2}));
  EXPECT_EQ(best_combination(Cards{}, 2), Positions{});
  EXPECT_EQ(best_combination(Cards{"1"}, 0), Positions{});
}

// ---- ScoreNode (§11.7) as score_placement ----

TEST(VastaiScore, DiesOnOneCardScoreOnePerContainer) {
  const DeviceUnderTest dut("vastai");
  DieNode node(dut, {{"a1", die_on("A")},
                     {"a2", die_on("A")},
                     {"b1", die_on("B")},
                     {"b2", die_on("B")},
                     {"c1", die_on("C")}});
  const host::PlacementScore one = node.score({{"a1", "a2"}});
  EXPECT_EQ(one.score, 1.0);
  EXPECT_FALSE(one.policy_neutral);
  EXPECT_EQ(node.score({{}, {"a1", "a2"}, {"b1"}, {}}).score, 2.0) << "empty containers skipped";
  EXPECT_EQ(node.score({{"a1", "b1", "b2"}}).score, static_cast<double>(2.0f / 3.0f))
      << "float32, as HAMi";
  EXPECT_EQ(node.score({{"a1", "b1", "c1"}, {"a2", "b2"}}).score,
            static_cast<double>(1.0f / 3.0f + 0.5f));
  EXPECT_EQ(node.score({}).score, 0.0);
}

TEST(VastaiScore, AnyDeviceWithoutDieFactsScoresTheNodeZero) {
  const DeviceUnderTest dut("vastai");
  DieNode node(dut, {{"a1", die_on("A")},
                     {"a2", die_on("A")},
                     {"plain", ""},
                     {"empty", "{}"},
                     {"card", R"({"DeviceStrategy":"card","AIC":"A"})"},
                     {"noaic", R"({"DeviceStrategy":"die"})"}});
  for (const char* other : {"plain", "empty", "card", "noaic"}) {
    EXPECT_EQ(node.score({{"a1", "a2"}, {other}}).score, 0.0) << other;
    EXPECT_EQ(node.score({{other, "a1"}}).score, 0.0) << other;
  }
}

TEST(VastaiScore, HamiTypeAssertionsOnCustomInfo) {
  // A DeviceStrategy that is absent or not a string does not zero the
  // node; an AIC that is not a string is present but not counted.
  const DeviceUnderTest dut("vastai");
  DieNode node(dut, {{"s1", R"({"AIC":"A"})"},
                     {"s2", R"({"DeviceStrategy":5,"AIC":"A"})"},
                     {"n1", R"({"DeviceStrategy":"die","AIC":7})"},
                     {"n2", R"({"DeviceStrategy":"die","AIC":null})"},
                     {"b1", die_on("B")}});
  EXPECT_EQ(node.score({{"s1", "s2"}}).score, 1.0);
  EXPECT_EQ(node.score({{"s1", "n1", "b1"}}).score, 0.5);
  EXPECT_EQ(node.score({{"n1", "n2"}, {"b1"}}).score, 1.0) << "no string AIC: container skipped";
}

TEST(VastaiScore, ScoreIsRawNotPolicyNeutralKeepsX10) {
  // X10 kept: HAMi adds the term raw under every node policy, so spread
  // prefers the node whose dies spread over more cards. The plugin reports
  // the same raw value and policy_neutral 0 whatever the policy.
  const DeviceUnderTest dut("vastai");
  DieNode node(dut, {{"a1", die_on("A")}, {"a2", die_on("A")}, {"b1", die_on("B")}});
  for (const char* policy : {"binpack", "spread", ""}) {
    const host::PlacementScore s = node.score({{"a1", "b1"}}, policy);
    EXPECT_EQ(s.score, 0.5) << policy;
    EXPECT_FALSE(s.policy_neutral) << policy;
  }
}

TEST(VastaiScore, UnknownDeviceIsInvalidArgument) {
  const DeviceUnderTest dut("vastai");
  DieNode node(dut, {{"a1", die_on("A")}});
  try {
    static_cast<void>(node.score({{"a1", "gone"}}));
    FAIL();
  } catch (const CallError& e) {
    EXPECT_EQ(e.status(), HAMI_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(e.what()),
              "vastai.score_placement: score_placement: placed device gone is not among the "
              "node's devices");
  }
}

// Die mode's capacity at its boundaries (reference §11.5): exactly the dies
// asked fit, one more does not; a die's split count; one die asked takes the
// first one collected.
TEST(VastaiDieCapacity, DiesAndSlotsAtTheirBoundaries) {
  const DeviceUnderTest dut("vastai");
  DieNode two(dut, {{"d0", die_on("0")}, {"d1", die_on("0")}});
  DieFit o = two.fit(2);
  ASSERT_TRUE(o.fits) << o.reason;
  EXPECT_EQ(o.ids, (Ids{"d0", "d1"}));
  o = two.fit(3);
  EXPECT_FALSE(o.fits);
  EXPECT_EQ(o.reason, "2/2 AllocatedCardsInsufficientRequest");

  // A die whose one slot is taken; a die of split count 2 with one task.
  DieNode taken(dut, {{"d0", die_on("0"), 1, 1}, {"d1", die_on("0"), 1, 2}});
  o = taken.fit(1);
  ASSERT_TRUE(o.fits) << o.reason;
  EXPECT_EQ(o.ids, (Ids{"d1"}));
  o = taken.fit(2);
  EXPECT_FALSE(o.fits);
  EXPECT_EQ(o.reason, "1/2 AllocatedCardsInsufficientRequest, 1/2 CardTimeSlicingExhausted");

  // More dies free than asked: one die is the first collected, not one of
  // the larger card's.
  DieNode three(dut, {{"a0", die_on("A")}, {"b0", die_on("B")}, {"b1", die_on("B")}});
  o = three.fit(1);
  ASSERT_TRUE(o.fits) << o.reason;
  EXPECT_EQ(o.ids, (Ids{"a0"}));
  o = three.fit(2);
  ASSERT_TRUE(o.fits) << o.reason;
  EXPECT_EQ(o.ids, (Ids{"b0", "b1"}));
}

// Under mutex a die with one task, or any die of its card, is taken.
TEST(VastaiDieCapacity, MutexAtItsBoundary) {
  const DeviceUnderTest dut("vastai");
  DieNode idle(dut, {{"a0", die_on("A"), 0, 2}, {"a1", die_on("A"), 0, 2}});
  EXPECT_EQ(idle.fit(2, HAMI_FIT_MUTEX).ids, (Ids{"a0", "a1"}));
  DieNode one(dut, {{"a0", die_on("A"), 1, 2}, {"a1", die_on("A"), 0, 2}});
  const DieFit o = one.fit(1, HAMI_FIT_MUTEX);
  EXPECT_FALSE(o.fits);
  EXPECT_EQ(o.reason, "2/2 ExclusiveDeviceAllocateConflict");
}

}  // namespace
}  // namespace hami::testing
