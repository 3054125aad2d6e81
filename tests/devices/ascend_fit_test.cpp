// ascend.so through its ABI: fit and the placement score. HAMi reference
// §1.5, §1.7 and the cases of pkg/device/ascend/device_test.go
// (TestDevices_Fit over six configs × the standard table T1–T15 plus the
// NetworkID and ModeNotFit cases, TestDevices_Fit_910C) and
// device_910c_pairing_test.go, with HAMi's expected values; and the
// decisions on §1.9b (X9), §1.9c and §1.9f (X10).
//
// X4 / §1.9e is host-side: HAMi filters every vendor's devices by substring,
// so an Ascend910B4 request also sees Ascend910B4-1 devices. Our host hands
// each instance only the devices of its own registration annotation, so an
// Ascend910B4 instance never sees hami.io/node-register-Ascend910B4-1.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "device_under_test.hpp"
#include "fit_run.hpp"
#include "k8s_views.hpp"
#include "share_fit_boundaries.hpp"
#include "standard_fit_table.hpp"

namespace hami::testing {
namespace {

// A device of HAMi's tests with its custominfo.NetworkID, if any.
struct Npu {
  DeviceState state;
  std::optional<int> network_id;
};

// FitFixture whose devices also carry ascend.so's attributes text.
class NpuFixture {
 public:
  explicit NpuFixture(const std::vector<Npu>& npus) : fixture_(states(npus)) {
    for (const Npu& n : npus)
      attributes_.push_back(n.network_id ? "NetworkID=" + std::to_string(*n.network_id) : "");
  }

  hami_fit_input input(const hami_pod_view& pod, const hami_device_request& req,
                       std::uint32_t flags = 0) {
    hami_fit_input in = fixture_.input(pod, req, flags);
    devices_.assign(in.devices_len, hami_device{});
    usage_.assign(in.devices, in.devices + in.devices_len);
    for (std::size_t i = 0; i < in.devices_len; ++i) {
      devices_[i] = *in.devices[i].device;
      devices_[i].attributes = hami_str{attributes_[i].data(), attributes_[i].size()};
      usage_[i].device = &devices_[i];
    }
    in.devices = usage_.data();
    return in;
  }

  std::span<const hami_device_usage> usage() const { return usage_; }
  const std::string& id(std::size_t i) const { return fixture_.device(i).id; }

 private:
  static std::vector<DeviceState> states(const std::vector<Npu>& npus) {
    std::vector<DeviceState> out;
    for (const Npu& n : npus)
      out.push_back(n.state);
    return out;
  }
  FitFixture fixture_;
  std::vector<std::string> attributes_;
  std::vector<hami_device> devices_;
  std::vector<hami_device_usage> usage_;
};

struct Outcome {
  bool fits = false;
  std::string reason;
  std::vector<std::string> ids;
  std::vector<std::string> types;
  std::vector<hami_fit_pick> picks;
};

// `npus` in HAMi's slice order; fit tries them from the end.
Outcome fit(const DeviceUnderTest& dut, std::vector<Npu> npus, const hami_device_request& req,
            Pairs annotations = {}, std::uint32_t flags = 0) {
  std::reverse(npus.begin(), npus.end());
  NpuFixture f(npus);
  PodFixture pod;
  for (auto& [k, v] : annotations)
    pod.annotation(k, v);
  pod.container({});
  std::vector<hami_fit_pick> picks(static_cast<std::size_t>(std::max(req.count, 1)));
  const hami_fit_input in = f.input(pod.view(), req, flags);
  const FitResult r = dut.plugin().fit(in, picks);
  Outcome o;
  o.fits = r.fits;
  o.reason = r.reason;
  picks.resize(r.picks_len);
  for (const hami_fit_pick& p : picks) {
    o.ids.push_back(f.id(p.device));
    o.types.emplace_back(p.type.ptr, p.type.len);
  }
  o.picks = picks;
  return o;
}

// HAMi's device of the NetworkID and ModeNotFit cases.
Npu card(const std::string& type, std::string id, std::optional<int> network_id,
         std::string mode = "", std::int64_t mem = 32768, std::int32_t cores = 100) {
  DeviceState d = standard_card(type, std::move(id), mem);
  d.mode = std::move(mode);
  d.cores = cores;
  return {d, network_id};
}

// The 910C pairing tests' device: Count 1, Totalmem 32000, no cores.
Npu module_npu(std::uint32_t index, std::optional<int> network_id) {
  DeviceState d;
  d.id = "dev-" + std::to_string(index);
  d.type = "Ascend910C";
  d.index = index;
  d.count = 1;
  d.memory_mib = 32000;
  d.cores = 0;
  return {d, network_id};
}

constexpr const char* kSoft = "huawei.com/vnpu-mode";

TEST(AscendFit, StandardTableForSixConfigs) {
  const std::vector<std::pair<std::string, std::string>> configs = {
      {"Ascend910A", R"({"commonWord": "Ascend910A"})"},
      {"Ascend910B2", R"({"commonWord": "Ascend910B2"})"},
      {"Ascend910B3", R"({"commonWord": "Ascend910B3"})"},
      {"Ascend910B4", R"({"commonWord": "Ascend910B4"})"},
      // HAMi's fifth config: chip 910B4-1 under the vendor word Ascend910B4.
      {"Ascend910B4", R"({"commonWord": "Ascend910B4", "chipName": "910B4-1",
         "memoryAllocatable": 65536, "memoryCapacity": 65536})"},
      {"Ascend310P", R"({"commonWord": "Ascend310P"})"},
  };
  for (const auto& [word, config] : configs) {
    SCOPED_TRACE(config);
    const DeviceUnderTest dut("ascend", config);
    for (const StandardFitCase& c : standard_fit_cases(
             {word, "hami.io/use-" + word + "-uuid", "hami.io/no-use-" + word + "-uuid"})) {
      expect_standard_fit(dut, c);
    }
  }
}

TEST(AscendFit, ScheduleByNetworkId) {
  const DeviceUnderTest dut("ascend");
  const Outcome o = fit(dut,
                        {card("Ascend910A", "dev-0", 0), card("Ascend910A", "dev-1", 1),
                         card("Ascend910A", "dev-2", 1)},
                        make_request(2, 1024, 0, 0));
  ASSERT_TRUE(o.fits) << o.reason;
  EXPECT_EQ(o.ids, (std::vector<std::string>{"dev-2", "dev-1"}));
  EXPECT_EQ(o.types, (std::vector<std::string>{"Ascend910A", "Ascend910A"}));
  EXPECT_EQ(o.picks[0].memory_mib, 1024);
}

TEST(AscendFit, NetworkIdCandidatesExactlyTheCountOrOneRequested) {
  const DeviceUnderTest dut("ascend");
  const std::vector<Npu> npus = {card("Ascend910A", "dev-0", 0), card("Ascend910A", "dev-1", 1)};
  Outcome o = fit(dut, npus, make_request(2, 1024, 0, 0));
  ASSERT_TRUE(o.fits);
  EXPECT_EQ(o.ids, (std::vector<std::string>{"dev-1", "dev-0"}));
  o = fit(dut, npus, make_request(1, 1024, 0, 0));
  ASSERT_TRUE(o.fits);
  EXPECT_EQ(o.ids, (std::vector<std::string>{"dev-1"})) << "the first candidate in try order";
  // Fewer candidates than the count: the per-device reasons plus the count.
  std::vector<Npu> sick = npus;
  sick[0].state.healthy = false;
  o = fit(dut, sick, make_request(2, 1024, 0, 0));
  EXPECT_FALSE(o.fits);
  EXPECT_EQ(o.reason, "1/2 AllocatedCardsInsufficientRequest, 1/2 CardNotHealth");
}

TEST(AscendFit, NetworkIdOnlyForAscend910Words) {
  // Ascend310P is not an Ascend910 word: the walk stops at the count.
  const DeviceUnderTest dut("ascend", R"({"commonWord": "Ascend310P"})");
  const Outcome o = fit(dut,
                        {card("Ascend310P", "dev-0", 0), card("Ascend310P", "dev-1", 1),
                         card("Ascend310P", "dev-2", 0)},
                        make_request(2, 1024, 0, 0));
  ASSERT_TRUE(o.fits);
  EXPECT_EQ(o.ids, (std::vector<std::string>{"dev-2", "dev-1"}));
}

TEST(AscendFit, EqualNetworkIdGroupsGoToTheGroupTriedFirst_9c) {
  // §1.9c fixed: HAMi takes either of two equal groups (map order, unstable
  // sort); here the group whose first candidate is tried first.
  const DeviceUnderTest dut("ascend");
  const Outcome o = fit(dut,
                        {card("Ascend910A", "d", 0), card("Ascend910A", "c", 1),
                         card("Ascend910A", "b", 0), card("Ascend910A", "a", 1)},
                        make_request(2, 1024, 0, 0));
  ASSERT_TRUE(o.fits);
  EXPECT_EQ(o.ids, (std::vector<std::string>{"a", "c"}));
}

TEST(AscendFit, ModeNotFit) {
  const DeviceUnderTest dut("ascend", R"({"commonWord": "Ascend910B3"})");
  const Pairs soft = {{kSoft, "hami-core"}};
  const std::vector<Npu> hard_node = {card("Ascend910B3", "dev-0", std::nullopt, "vnpu", 65536)};
  for (const hami_device_request& req :
       {make_request(1, 15360, 0, 0), make_request(1, 32768, 0, 0), make_request(1, 0, 101, 0)}) {
    const Outcome o = fit(dut, hard_node, req, soft);
    EXPECT_FALSE(o.fits);
    EXPECT_EQ(o.reason, "1/1 ModeNotFit");
  }
  // The count is over all devices handed in.
  const Outcome two = fit(dut,
                          {card("Ascend910B3", "dev-0", std::nullopt, "vnpu", 65536),
                           card("Ascend910B3", "dev-1", std::nullopt, "vnpu", 65536)},
                          make_request(1, 15360, 0, 0), soft);
  EXPECT_EQ(two.reason, "1/2 ModeNotFit");
  // A pod without the mode fits a hard-split node.
  EXPECT_TRUE(fit(dut, hard_node, make_request(1, 16384, 0, 0)).fits);
}

TEST(AscendFit, SoftSplitNodes) {
  const DeviceUnderTest dut("ascend", R"({"commonWord": "Ascend910B3"})");
  const std::vector<Npu> node = {
      card("Ascend910B3", "dev-0", std::nullopt, "hami-core", 65536, 20)};
  // No mode on a hami-core node fits.
  EXPECT_TRUE(fit(dut, node, make_request(1, 16384, 0, 0)).fits);
  // hami-core, whole card.
  Outcome o = fit(dut, node, make_request(1, 0, 100, 100), {{kSoft, "hami-core"}});
  ASSERT_TRUE(o.fits) << o.reason;
  EXPECT_EQ(o.picks[0].memory_mib, 65536);
  EXPECT_EQ(o.picks[0].cores, 100);
  // A soft-split pod counts cores against 100, not the 20 AI cores.
  o = fit(dut, node, make_request(1, 15360, 0, 30), {{kSoft, "hami-core"}});
  ASSERT_TRUE(o.fits) << o.reason;
  EXPECT_EQ(o.picks[0].cores, 30);
  o = fit(dut, node, make_request(1, 15360, 0, 30));
  EXPECT_FALSE(o.fits);
  EXPECT_EQ(o.reason, "1/1 CardInsufficientCore");
}

TEST(AscendFit, UuidSelectorsAreTheEntrysOwn) {
  const DeviceUnderTest dut("ascend", R"({"commonWord": "Ascend910B3"})");
  const std::vector<Npu> npus = {card("Ascend910B3", "NPU-0", std::nullopt),
                                 card("Ascend910B3", "NPU-1", std::nullopt)};
  Outcome o =
      fit(dut, npus, make_request(1, 1024, 0, 0), {{"hami.io/use-Ascend910B3-uuid", "NPU-0"}});
  ASSERT_TRUE(o.fits);
  EXPECT_EQ(o.ids, (std::vector<std::string>{"NPU-0"}));
  o = fit(dut, npus, make_request(2, 1024, 0, 0), {{"hami.io/no-use-Ascend910B3-uuid", "NPU-1"}});
  EXPECT_EQ(o.reason, "1/2 AllocatedCardsInsufficientRequest, 1/2 CardUuidMismatch");
}

TEST(AscendFit, Fit910C) {
  const DeviceUnderTest dut("ascend", R"({"commonWord": "Ascend910C"})");
  const Outcome o =
      fit(dut, {module_npu(0, 0), module_npu(1, 0), module_npu(2, 0)}, make_request(2, 0, 0, 0));
  ASSERT_TRUE(o.fits) << o.reason;
  EXPECT_EQ(o.ids, (std::vector<std::string>{"dev-1", "dev-0"}));
  EXPECT_EQ(o.types, (std::vector<std::string>{"Ascend910C", "Ascend910C"}));
}

TEST(AscendFit, Ascend910CFitPartialAllocationBug) {
  const DeviceUnderTest dut("ascend", R"({"commonWord": "Ascend910C"})");
  const Outcome o = fit(
      dut,
      {module_npu(0, 0), module_npu(1, 0), module_npu(2, 0), module_npu(4, 0), module_npu(6, 0)},
      make_request(4, 0, 0, 0));
  EXPECT_FALSE(o.fits);
  // Denominator: the requested count, as HAMi.
  EXPECT_EQ(o.reason, "2/4 AllocatedCardsInsufficientRequest");
}

TEST(AscendFit, Ascend910CFitExactCountBypassBug) {
  const DeviceUnderTest dut("ascend", R"({"commonWord": "Ascend910C"})");
  const Outcome o = fit(dut, {module_npu(0, 0), module_npu(2, 0)}, make_request(2, 0, 0, 0));
  EXPECT_FALSE(o.fits);
  EXPECT_EQ(o.reason, "0/2 AllocatedCardsInsufficientRequest");
}

TEST(AscendFit, Ascend910CFitFullPairSucceeds) {
  const DeviceUnderTest dut("ascend", R"({"commonWord": "Ascend910C"})");
  const Outcome o = fit(dut, {module_npu(0, 0), module_npu(1, 0)}, make_request(2, 0, 0, 0));
  ASSERT_TRUE(o.fits) << o.reason;
  EXPECT_EQ(o.ids.size(), 2u);
}

TEST(AscendFit, Ascend910CFitWithoutNetworkIdValidatesPairing) {
  const DeviceUnderTest dut("ascend", R"({"commonWord": "Ascend910C"})");
  EXPECT_FALSE(
      fit(dut, {module_npu(0, std::nullopt), module_npu(2, std::nullopt)}, make_request(2, 0, 0, 0))
          .fits);
  const Outcome o = fit(dut, {module_npu(0, std::nullopt), module_npu(1, std::nullopt)},
                        make_request(2, 0, 0, 0));
  ASSERT_TRUE(o.fits) << o.reason;
  EXPECT_EQ(o.ids.size(), 2u);
}

TEST(AscendFit, ComputeBestCombination910CNoFullPairsReturnsEmpty) {
  const DeviceUnderTest dut("ascend", R"({"commonWord": "Ascend910C"})");
  const Outcome o = fit(dut,
                        {module_npu(0, std::nullopt), module_npu(2, std::nullopt),
                         module_npu(4, std::nullopt), module_npu(6, std::nullopt)},
                        make_request(4, 0, 0, 0));
  EXPECT_FALSE(o.fits);
  EXPECT_EQ(o.reason, "0/4 AllocatedCardsInsufficientRequest");
}

TEST(AscendFit, Ascend910CEqualModulesGoToTheModuleTriedFirst_9c) {
  const DeviceUnderTest dut("ascend", R"({"commonWord": "Ascend910C"})");
  // Try order: 3, 2, 1, 0 → module 1 is met first.
  const Outcome o =
      fit(dut, {module_npu(0, 0), module_npu(1, 0), module_npu(2, 0), module_npu(3, 0)},
          make_request(2, 0, 0, 0));
  ASSERT_TRUE(o.fits);
  EXPECT_EQ(o.ids, (std::vector<std::string>{"dev-3", "dev-2"}));
  // Reasons of the devices that failed are kept, over the requested count.
  std::vector<Npu> npus = {module_npu(0, 0), module_npu(1, 0), module_npu(2, 0)};
  npus[0].state.healthy = false;
  EXPECT_EQ(fit(dut, npus, make_request(2, 0, 0, 0)).reason,
            "0/2 AllocatedCardsInsufficientRequest, 1/2 CardNotHealth");
}

TEST(AscendFit, X9_OddCountsWithoutSuperPodNeverFit_Kept) {
  // §1.9b kept: pairing applies to every Ascend910C request above 1, as in
  // HAMi's pairing tests (whose config has no superPod), so the odd counts
  // admission accepts without superPod cannot be placed.
  const DeviceUnderTest dut("ascend", R"({"commonWord": "Ascend910C", "superPod": false})");
  const Outcome o =
      fit(dut, {module_npu(0, 0), module_npu(1, 0), module_npu(2, 0), module_npu(3, 0)},
          make_request(3, 0, 0, 0));
  EXPECT_FALSE(o.fits);
  EXPECT_EQ(o.reason, "4/3 AllocatedCardsInsufficientRequest");
  // One NPU is not paired.
  EXPECT_TRUE(fit(dut, {module_npu(0, 0), module_npu(2, 0)}, make_request(1, 0, 0, 0)).fits);
}

TEST(AscendFit, MalformedAttributesAreAnError) {
  const DeviceUnderTest dut("ascend");
  NpuFixture f({card("Ascend910A", "dev-0", std::nullopt)});
  PodFixture pod;
  pod.container({});
  hami_fit_input in = f.input(pod.view(), make_request(1, 0, 100, 0));
  hami_device bad = *in.devices[0].device;
  bad.attributes = hami_str{"NetworkID=x", 11};
  hami_device_usage u = in.devices[0];
  u.device = &bad;
  in.devices = &u;
  std::vector<hami_fit_pick> picks(1);
  EXPECT_THROW(static_cast<void>(dut.plugin().fit(in, picks)), CallError);
}

// ---- score_placement (§1.7) ----

PodAllocation placement(std::vector<std::vector<std::string>> containers) {
  PodAllocation out;
  for (const auto& ids : containers) {
    std::vector<AllocDevice> c;
    for (const std::string& id : ids) {
      AllocDevice d;
      d.id = id;
      d.type = "Ascend910B3";
      c.push_back(d);
    }
    out.push_back(c);
  }
  return out;
}

host::PlacementScore score(const DeviceUnderTest& dut, const std::vector<Npu>& npus,
                           const PodAllocation& allocation, const std::string& policy = "binpack") {
  NpuFixture f(npus);
  PodFixture pod;
  pod.container({});
  static_cast<void>(f.input(pod.view(), make_request(1, 0, 100, 0)));
  return dut.plugin().score_placement(pod.view(), "node-1", policy, f.usage(), allocation);
}

TEST(AscendScore, NetworkIdConcentrationTimesTen) {
  const DeviceUnderTest dut("ascend", R"({"commonWord": "Ascend910B3"})");
  const std::vector<Npu> npus = {card("Ascend910B3", "NPU-0", 0), card("Ascend910B3", "NPU-1", 0),
                                 card("Ascend910B3", "NPU-4", 1), card("Ascend910B3", "NPU-5", 1)};
  // 2/2 + 1/2, × 10; containers without NPUs do not count.
  EXPECT_DOUBLE_EQ(score(dut, npus, placement({{}, {"NPU-0", "NPU-1"}, {"NPU-0", "NPU-4"}})).score,
                   15.0);
  // Go computes in float32: 2/3 + 1 = 1.6666666 (float32) × 10.
  const std::vector<Npu> three = {card("Ascend910B3", "a", 0), card("Ascend910B3", "b", 0),
                                  card("Ascend910B3", "c", 1)};
  EXPECT_DOUBLE_EQ(score(dut, three, placement({{"a", "b", "c"}, {"a"}})).score,
                   static_cast<double>((2.0f / 3.0f + 1.0f) * 10.0f));
}

TEST(AscendScore, AnyNpuWithoutNetworkIdMakesTheNodeZero) {
  const DeviceUnderTest dut("ascend", R"({"commonWord": "Ascend910B3"})");
  const std::vector<Npu> npus = {card("Ascend910B3", "NPU-0", 0),
                                 card("Ascend910B3", "NPU-1", std::nullopt)};
  EXPECT_EQ(score(dut, npus, placement({{"NPU-0"}, {"NPU-1"}})).score, 0.0);
  EXPECT_EQ(score(dut, npus, placement({{"NPU-0"}, {"NPU-9"}})).score, 0.0)
      << "an NPU that is not on the node has no NetworkID";
  EXPECT_EQ(score(dut, npus, placement({{"NPU-0"}})).score, 10.0);
}

TEST(AscendScore, OnlyAscend910Words) {
  const DeviceUnderTest dut("ascend", R"({"commonWord": "Ascend310P"})");
  EXPECT_EQ(score(dut, {card("Ascend310P", "a", 0)}, placement({{"a"}})).score, 0.0);
}

TEST(AscendScore, X10_NotPolicyNeutral_Kept) {
  // §1.9f kept: the term is added raw under every node policy.
  const DeviceUnderTest dut("ascend", R"({"commonWord": "Ascend910B3"})");
  const std::vector<Npu> npus = {card("Ascend910B3", "a", 0), card("Ascend910B3", "b", 1)};
  for (const char* policy : {"binpack", "spread"}) {
    const host::PlacementScore s = score(dut, npus, placement({{"a", "b"}}), policy);
    EXPECT_DOUBLE_EQ(s.score, 5.0);
    EXPECT_FALSE(s.policy_neutral);
  }
}

// Every capacity check of Ascend's fit at its boundary (reference §1.5): the
// share-fit's on a 100-core card, then the cores against the card's own
// AI cores (hard split) or against 100 (soft split, hami-core).
TEST(AscendCapacity, EveryShareFitCheckAtItsBoundary) {
  const DeviceUnderTest dut("ascend", R"({"commonWord": "Ascend910B3"})");
  for (const BoundaryCase& c : share_fit_boundary_cases("Ascend910B3"))
    expect_boundary(dut, c);
}

TEST(AscendCapacity, CoresAgainstTheAiCoresOrOneHundredAtTheirBoundaries) {
  const DeviceUnderTest dut("ascend", R"({"commonWord": "Ascend910B3"})");
  const auto npu = [](std::string mode, std::int32_t used, std::int32_t used_cores) {
    Npu n = card("Ascend910B3", "dev-0", std::nullopt, std::move(mode), 65536, 20);
    n.state.used = used;
    n.state.used_cores = used_cores;
    return std::vector<Npu>{n};
  };
  const auto verdict = [&](const std::vector<Npu>& node, std::int32_t cores, Pairs annotations) {
    const Outcome o = fit(dut, node, make_request(1, 1024, 0, cores), std::move(annotations));
    if (!o.fits)
      return o.reason;
    return "fits " + std::to_string(o.picks.at(0).cores);
  };
  const Pairs soft = {{kSoft, "hami-core"}};
  // Hard split: 20 AI cores.
  EXPECT_EQ(verdict(npu("", 1, 10), 10, {}), "fits 10");
  EXPECT_EQ(verdict(npu("", 1, 10), 11, {}), "1/1 CardInsufficientCore");
  EXPECT_EQ(verdict(npu("", 1, 11), 10, {}), "1/1 CardInsufficientCore");
  EXPECT_EQ(verdict(npu("", 1, 20), 0, {}), "1/1 CardComputeUnitsExhausted");
  EXPECT_EQ(verdict(npu("", 1, 19), 0, {}), "fits 0");
  // 100 cores on a 20-core card: short of cores, not an exclusive conflict.
  EXPECT_EQ(verdict(npu("", 0, 0), 100, {}), "1/1 CardInsufficientCore");
  // Soft split: 100, whatever the card reports.
  EXPECT_EQ(verdict(npu("hami-core", 1, 50), 50, soft), "fits 50");
  EXPECT_EQ(verdict(npu("hami-core", 1, 50), 51, soft), "1/1 CardInsufficientCore");
  EXPECT_EQ(verdict(npu("hami-core", 1, 51), 50, soft), "1/1 CardInsufficientCore");
  EXPECT_EQ(verdict(npu("hami-core", 0, 0), 101, soft), "fits 100");
  EXPECT_EQ(verdict(npu("hami-core", 1, 0), 100, soft), "1/1 ExclusiveDeviceAllocateConflict");
  EXPECT_EQ(verdict(npu("hami-core", 1, 0), 99, soft), "fits 99");
  EXPECT_EQ(verdict(npu("hami-core", 1, 100), 0, soft), "1/1 CardComputeUnitsExhausted");
  EXPECT_EQ(verdict(npu("hami-core", 1, 99), 0, soft), "fits 0");
}

// HAMi's percentage 101 ("not given") takes no memory; 100 takes the card.
TEST(AscendCapacity, PercentageOneHundredOneTakesNoMemory) {
  const DeviceUnderTest dut("ascend", R"({"commonWord": "Ascend910B3"})");
  Npu full = card("Ascend910B3", "dev-0", std::nullopt, "", 65536);
  full.state.used = 1;
  full.state.used_memory_mib = 65536;
  const Outcome none = fit(dut, {full}, make_request(1, 0, 101, 0));
  ASSERT_TRUE(none.fits) << none.reason;
  EXPECT_EQ(none.picks[0].memory_mib, 0);
  const Outcome whole = fit(dut, {full}, make_request(1, 0, 100, 0));
  EXPECT_EQ(whole.reason, "1/1 CardInsufficientMemory");
}

}  // namespace
}  // namespace hami::testing
