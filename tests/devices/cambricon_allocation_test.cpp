// Cambricon allocation annotations through cambricon.so's ABI: HAMi's
// Test_PatchAnnotations table with the exact bytes of all four keys — the
// two standard allocation strings (encode_allocation) and
// CAMBRICON_DSMLU_ASSIGNED / CAMBRICON_DSMLU_PROFILE (annotate_allocation) —
// and the decision on HAMi §4.9c (one profile per pod).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "device_under_test.hpp"
#include "k8s_views.hpp"

namespace hami::testing {
namespace {

constexpr const char* kAssigned = "CAMBRICON_DSMLU_ASSIGNED";
constexpr const char* kProfile = "CAMBRICON_DSMLU_PROFILE";

AllocDevice placed(std::string id, std::int64_t memory_mib, std::int32_t cores,
                   std::uint32_t index) {
  AllocDevice d;
  d.id = std::move(id);
  d.type = "MLU";
  d.memory_mib = memory_mib;
  d.cores = cores;
  d.index = index;
  return d;
}

// The allocation string the host writes under both standard keys.
std::string encoded(const DeviceUnderTest& dut, const PodAllocation& allocation) {
  std::vector<std::vector<hami_alloc_device>> devices;
  std::vector<hami_container_alloc> containers;
  devices.reserve(allocation.size());
  for (const auto& c : allocation) {
    auto& out = devices.emplace_back();
    for (const AllocDevice& d : c) {
      hami_alloc_device a{};
      a.struct_size = sizeof a;
      a.id = hami_str{d.id.data(), d.id.size()};
      a.type = hami_str{d.type.data(), d.type.size()};
      a.memory_mib = d.memory_mib;
      a.cores = d.cores;
      out.push_back(a);
    }
  }
  for (const auto& c : devices)
    containers.push_back(hami_container_alloc{c.data(), c.size()});
  return dut.plugin().encode_allocation(containers);
}

std::optional<std::string> written(const std::vector<AnnotationWrite>& writes,
                                   const std::string& key) {
  for (const AnnotationWrite& w : writes) {
    if (w.key == key)
      return w.value;
  }
  return std::nullopt;
}

struct PatchCase {
  std::string name;
  PodAllocation allocation;
  std::vector<AnnotationWrite> writes;  // annotate_allocation, in order
  std::string value;                    // both standard keys
};

TEST(CambriconAllocation, PatchAnnotations) {
  const DeviceUnderTest dut("cambricon");
  const std::vector<PatchCase> cases = {
      {"one device",
       {{placed("device-0", 256000, 1, 0)}},
       {{kAssigned, "false"}, {kProfile, "0_1_1000"}},
       "device-0,MLU,256000,1:;"},
      {"no devices", {}, {}, ""},
      {"first container empty",
       {{}, {placed("device-0", 256000, 1, 0)}},
       {{kAssigned, "false"}, {kProfile, "0_1_1000"}},
       ";device-0,MLU,256000,1:;"},
      // Reference §4.6: vmlu 1, vmemory 20, vcore 10 on the MLU of index 3.
      {"registered index",
       {{placed("node1-cambricon-mlu-3", 5120, 10, 3)}},
       {{kAssigned, "false"}, {kProfile, "3_10_20"}},
       "node1-cambricon-mlu-3,MLU,5120,10:;"},
  };
  for (const PatchCase& c : cases) {
    PodFixture pod;
    pod.container({"c1", false, {}, {}, {}});
    pod.container({"c2", false, {}, {}, {}});
    const std::vector<AnnotationWrite> writes =
        dut.plugin().annotate_allocation(pod.view(), "node1", c.allocation, 1767225600);
    ASSERT_EQ(writes.size(), c.writes.size()) << c.name;
    for (std::size_t i = 0; i < writes.size(); ++i) {
      EXPECT_EQ(writes[i].key, c.writes[i].key) << c.name;
      EXPECT_EQ(writes[i].value, c.writes[i].value) << c.name;
    }
    EXPECT_EQ(encoded(dut, c.allocation), c.value) << c.name;
  }
}

TEST(CambriconAllocation, ContainersWithoutMlusWriteNothing) {
  const DeviceUnderTest dut("cambricon");
  PodFixture pod;
  pod.container({"c1", false, {}, {}, {}});
  EXPECT_TRUE(dut.plugin().annotate_allocation(pod.view(), "n", {{}, {}}, 0).empty());
}

TEST(CambriconAllocation, HamiSingleProfileKeptForMultiDevicePods) {
  // HAMi §4.9c: the dsmlu node plugin reads one profile, so a pod with
  // several MLUs or several MLU containers gets the first device's only;
  // the allocation strings carry every device.
  const DeviceUnderTest dut("cambricon");
  PodFixture pod;
  pod.container({"init", true, {}, {}, {}});
  pod.container({"a", false, {}, {}, {}});
  pod.container({"b", false, {}, {}, {}});
  const PodAllocation allocation = {
      {},
      {placed("n-cambricon-mlu-2", 2560, 30, 2), placed("n-cambricon-mlu-1", 2560, 30, 1)},
      {placed("n-cambricon-mlu-0", 24576, 100, 0)}};
  const std::vector<AnnotationWrite> writes =
      dut.plugin().annotate_allocation(pod.view(), "n", allocation, 0);
  ASSERT_EQ(writes.size(), 2u);
  EXPECT_EQ(written(writes, kAssigned), std::optional<std::string>("false"));
  EXPECT_EQ(written(writes, kProfile), std::optional<std::string>("2_30_10"));
  EXPECT_EQ(encoded(dut, allocation),
            ";n-cambricon-mlu-2,MLU,2560,30:n-cambricon-mlu-1,MLU,2560,30:;"
            "n-cambricon-mlu-0,MLU,24576,100:;");
}

TEST(CambriconAllocation, ProfileMemoryIsWholeUnits) {
  // HAMi divides the pick's MiB by 256 as integers; a percentage request
  // on a card whose memory is no multiple of 256 rounds down.
  const DeviceUnderTest dut("cambricon");
  PodFixture pod;
  pod.container({"c1", false, {}, {}, {}});
  const std::vector<AnnotationWrite> writes =
      dut.plugin().annotate_allocation(pod.view(), "n", {{placed("d", 1000, 5, 7)}}, 0);
  EXPECT_EQ(written(writes, kProfile), std::optional<std::string>("7_5_3"));
}

TEST(CambriconAllocation, DecodeAllocation) {
  const DeviceUnderTest dut("cambricon");
  const PodAllocation decoded =
      dut.plugin().decode_allocation(";node1-cambricon-mlu-3,MLU,5120,10:;");
  ASSERT_EQ(decoded.size(), 2u);
  EXPECT_TRUE(decoded[0].empty());
  ASSERT_EQ(decoded[1].size(), 1u);
  EXPECT_EQ(decoded[1][0].id, "node1-cambricon-mlu-3");
  EXPECT_EQ(decoded[1][0].type, "MLU");
  EXPECT_EQ(decoded[1][0].memory_mib, 5120);
  EXPECT_EQ(decoded[1][0].cores, 10);
  EXPECT_THROW(static_cast<void>(dut.plugin().decode_allocation("a,MLU,x,1:;")), CallError);
}

}  // namespace
}  // namespace hami::testing
