// Invariant 5 and the reference model's MIG reservations on hand-made
// stored states: each rule fails on the state that breaks it, with its
// exact text, and passes on the one that keeps it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "invariants.hpp"
#include "model_run.hpp"

namespace {

using namespace hami::model;
using json = nlohmann::json;

constexpr const char* kGpu0 = "GPU-node-mig-0";

json pod(const std::string& name, const std::string& allocated, const std::string& mig,
         const std::string& mode = "mig", const std::string& phase = "Running") {
  json annotations = {{"hami.io/vgpu-node", kMigNode},
                      {"hami.io/vgpu-devices-allocated", allocated}};
  if (!mig.empty())
    annotations["hami.io/vgpu-mig-allocations"] = mig;
  if (!mode.empty())
    annotations["nvidia.com/vgpu-mode"] = mode;
  return {
      {"kind", "Pod"},
      {"metadata",
       {{"name", name}, {"namespace", "ml"}, {"uid", "uid-" + name}, {"annotations", annotations}}},
      {"spec",
       {{"nodeName", kMigNode},
        {"containers",
         {{{"name", "c0"}, {"resources", {{"limits", {{"nvidia.com/gpu", "1"}}}}}}}}}},
      {"status", {{"phase", phase}}}};
}

std::string entry(int container, int device, const std::string& profile, int start, int size,
                  const std::string& gpu = kGpu0) {
  return json{{"containerIndex", container},
              {"deviceIndex", device},
              {"gpuUUID", gpu},
              {"profile", profile},
              {"placement", {{"start", start}, {"size", size}}}}
      .dump();
}

StoredState state(const std::vector<json>& pods) {
  json list = {{"kind", "List"}, {"items", json::array()}};
  for (const auto& n : model_nodes_json())
    list["items"].push_back(json::parse(n));
  for (const auto& p : pods)
    list["items"].push_back(p);
  return parse_stored_list(list.dump());
}

std::vector<std::string> mig_violations(const std::vector<json>& pods) {
  const StoredState stored = state(pods);
  CheckInput in;
  in.stored = &stored;
  std::vector<std::string> out;
  check_mig(in, out);
  return out;
}

using Lines = std::vector<std::string>;

TEST(ModelMigInvariant, TwoInstancesOfOneGpuInOrderPass) {
  EXPECT_EQ(mig_violations(
                {pod("a", "GPU-node-mig-0,NVIDIA,4864,14:GPU-node-mig-0,NVIDIA,4864,14:;",
                     "[" + entry(0, 0, "1g.5gb", 6, 1) + "," + entry(0, 1, "1g.5gb", 5, 1) + "]")}),
            Lines{});
}

TEST(ModelMigInvariant, OverlappingPlacementsOfTwoPodsFail) {
  EXPECT_EQ(
      mig_violations(
          {pod("a", "GPU-node-mig-0,NVIDIA,19968,42:;", "[" + entry(0, 0, "3g.20gb", 4, 4) + "]"),
           pod("b", "GPU-node-mig-0,NVIDIA,4864,14:;", "[" + entry(0, 0, "1g.5gb", 6, 1) + "]")}),
      Lines{"mig: on GPU-node-mig-0, a (uid-a) at {4,4} overlaps b (uid-b) at {6,1}"});
}

TEST(ModelMigInvariant, AdjacentPlacementsAndCompletedPodsDoNotOverlap) {
  EXPECT_EQ(
      mig_violations(
          {pod("a", "GPU-node-mig-0,NVIDIA,19968,42:;", "[" + entry(0, 0, "3g.20gb", 0, 4) + "]"),
           pod("b", "GPU-node-mig-0,NVIDIA,19968,42:;", "[" + entry(0, 0, "3g.20gb", 4, 4) + "]"),
           pod("done", "GPU-node-mig-0,NVIDIA,4864,14:;", "[" + entry(0, 0, "1g.5gb", 6, 1) + "]",
               "mig", "Succeeded")}),
      Lines{});
}

TEST(ModelMigInvariant, UnregisteredPlacementOrProfileFails) {
  EXPECT_EQ(
      mig_violations(
          {pod("a", "GPU-node-mig-0,NVIDIA,9856,28:;", "[" + entry(0, 0, "2g.10gb", 1, 2) + "]"),
           pod("b", "GPU-node-mig-1,NVIDIA,9856,28:;",
               "[" + entry(0, 0, "4g.20gb", 0, 4, "GPU-node-mig-1") + "]")}),
      (Lines{"mig: pod a (uid-a) has 2g.10gb at {1,2}, not a placement GPU-node-mig-0 registered "
             "for it",
             "mig: pod b (uid-b) has profile 4g.20gb, which GPU-node-mig-1 did not register"}));
}

TEST(ModelMigInvariant, DeviceEntryWithoutMigEntryFails) {
  EXPECT_EQ(
      mig_violations({pod("a", "GPU-node-mig-0,NVIDIA,4864,14:GPU-node-mig-1,NVIDIA,4864,14:;",
                          "[" + entry(0, 0, "1g.5gb", 6, 1) + "]")}),
      Lines{"mig: pod a (uid-a) has MIG allocations [0/0 GPU-node-mig-0 1g.5gb {6,1}] for its "
            "MIG devices [0/0 GPU-node-mig-0 0/1 GPU-node-mig-1]"});
}

TEST(ModelMigInvariant, EntryOfAnotherPositionOrGpuFails) {
  EXPECT_EQ(mig_violations({pod("a", "GPU-node-mig-0,NVIDIA,4864,14:;",
                                "[" + entry(1, 0, "1g.5gb", 6, 1, "GPU-node-mig-1") + "]")}),
            Lines{"mig: pod a (uid-a) MIG allocation 0 is [1/0 GPU-node-mig-1 1g.5gb {6,1}], its "
                  "device entry is [0/0 GPU-node-mig-0]"});
}

TEST(ModelMigInvariant, DeviceEntryWithoutTheProfileMemoryFails) {
  EXPECT_EQ(mig_violations({pod("a", "GPU-node-mig-0,NVIDIA,5000,14:;",
                                "[" + entry(0, 0, "1g.5gb", 6, 1) + "]")}),
            Lines{"mig: pod a (uid-a) device entry [0/0 GPU-node-mig-0] carries mem 5000 cores 14, "
                  "profile 1g.5gb has mem 4864 cores 14"});
}

TEST(ModelMigInvariant, DeviceOfAModeThePodDoesNotAllowFails) {
  EXPECT_EQ(mig_violations({pod("a", "GPU-node-mig-0,NVIDIA,4864,14:;",
                                "[" + entry(0, 0, "1g.5gb", 6, 1) + "]", "hami-core")}),
            Lines{"mig: pod a (uid-a) asks for mode hami-core but got GPU-node-mig-0 in mode mig"});
}

TEST(ModelMigInvariant, MalformedAnnotationFails) {
  EXPECT_EQ(
      mig_violations({pod(
          "a", "GPU-node-mig-0,NVIDIA,4864,14:;",
          R"([{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-node-mig-0","profile":"1g.5gb","placement":{"start":6,"size":0}}])")}),
      Lines{
          R"(mig: pod a (uid-a): malformed MIG allocation {"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-node-mig-0","placement":{"size":0,"start":6},"profile":"1g.5gb"})"});
}

// The ledger check's model: the reservations attach to the devices the pod
// lists, sorted, in the pick data's text; a container listing a GPU twice
// takes two slots of it, as HAMi counts.
TEST(ModelMigInvariant, ExpectedChargeCarriesTheReservations) {
  const StoredState stored =
      state({pod("a", "GPU-node-mig-0,NVIDIA,4864,14:GPU-node-mig-0,NVIDIA,9856,28:;",
                 "[" + entry(0, 0, "1g.5gb", 6, 1) + "," + entry(0, 1, "2g.10gb", 0, 2) + "," +
                     entry(0, 2, "1g.5gb", 3, 1, "GPU-node-mig-1") + "]")});
  std::vector<std::string> errors;
  const auto charges = expected_charges(stored, errors);
  EXPECT_EQ(errors, Lines{});
  ASSERT_EQ(charges.size(), 1u);
  const DeviceMap& devices = charges.at("uid-a").devices;
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices.at(kGpu0), (DeviceTotals{14720, 42, 2, {"0,2,7:2g.10gb", "6,1,6:1g.5gb"}}));
}

}  // namespace
