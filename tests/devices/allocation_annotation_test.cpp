// Allocation annotations through nvidia.so and amd.so: HAMi §4.2 grammar,
// devices_test.go's encode/decode round trips, Test_PatchAnnotations, and the
// fix for HAMi bug 7.7#1 (one segment per container on nodes that register
// real model names).
#include <gtest/gtest.h>

#include "device_under_test.hpp"
#include "k8s_views.hpp"

namespace hami::testing {
namespace {

hami_alloc_device dev(const std::string& id, const std::string& type, std::int64_t mem,
                      std::int32_t cores) {
  hami_alloc_device d{};
  d.struct_size = sizeof d;
  d.id = hami_str{id.data(), id.size()};
  d.type = hami_str{type.data(), type.size()};
  d.memory_mib = mem;
  d.cores = cores;
  return d;
}

// Keeps the strings a list of hami_container_alloc points into.
struct Allocation {
  std::vector<std::vector<std::pair<std::string, std::string>>> names;
  std::vector<std::vector<hami_alloc_device>> devices;
  std::vector<hami_container_alloc> containers;

  std::span<const hami_container_alloc> build(
      const std::vector<
          std::vector<std::tuple<std::string, std::string, std::int64_t, std::int32_t>>>& spec) {
    names.assign(spec.size(), {});
    devices.assign(spec.size(), {});
    for (std::size_t c = 0; c < spec.size(); ++c) {
      names[c].reserve(spec[c].size());
      for (const auto& [id, type, mem, cores] : spec[c])
        names[c].emplace_back(id, type);
      for (std::size_t d = 0; d < spec[c].size(); ++d) {
        devices[c].push_back(dev(names[c][d].first, names[c][d].second, std::get<2>(spec[c][d]),
                                 std::get<3>(spec[c][d])));
      }
    }
    containers.clear();
    for (const auto& ds : devices)
      containers.push_back(hami_container_alloc{ds.data(), ds.size()});
    return containers;
  }
};

TEST(AllocationAnnotation, EncodesOneSegmentPerContainer) {
  const DeviceUnderTest dut("nvidia");
  Allocation a;
  EXPECT_EQ(dut.plugin().encode_allocation(a.build({})), "");
  EXPECT_EQ(dut.plugin().encode_allocation(a.build({{}})), ";");
  EXPECT_EQ(dut.plugin().encode_allocation(a.build({{{"nvidia-device-0", "NVIDIA", 2000, 1}}})),
            "nvidia-device-0,NVIDIA,2000,1:;");
  EXPECT_EQ(dut.plugin().encode_allocation(
                a.build({{{"GPU-aaaa", "NVIDIA", 3000, 30}, {"GPU-bbbb", "NVIDIA", 3000, 30}}})),
            "GPU-aaaa,NVIDIA,3000,30:GPU-bbbb,NVIDIA,3000,30:;");
  EXPECT_EQ(dut.plugin().encode_allocation(a.build({{}, {{"GPU-aaaa", "NVIDIA", 24576, 100}}})),
            ";GPU-aaaa,NVIDIA,24576,100:;");
}

TEST(AllocationAnnotation, DecodesSegmentsInOrderWithoutATrailingPhantom) {
  const DeviceUnderTest dut("nvidia");
  EXPECT_TRUE(dut.plugin().decode_allocation("").empty());
  const PodAllocation two = dut.plugin().decode_allocation(";GPU-aaaa,NVIDIA,24576,100:;");
  ASSERT_EQ(two.size(), 2u);
  EXPECT_TRUE(two[0].empty());
  ASSERT_EQ(two[1].size(), 1u);
  EXPECT_EQ(two[1][0].id, "GPU-aaaa");
  EXPECT_EQ(two[1][0].type, "NVIDIA");
  EXPECT_EQ(two[1][0].memory_mib, 24576);
  EXPECT_EQ(two[1][0].cores, 100);
  // After the device plugin served both containers.
  EXPECT_EQ(dut.plugin().decode_allocation(";;").size(), 2u);
  // A writer that left out the final ';' still yields its last segment.
  const PodAllocation unterminated = dut.plugin().decode_allocation("GPU-a,NVIDIA,1,2:");
  ASSERT_EQ(unterminated.size(), 1u);
  ASSERT_EQ(unterminated[0].size(), 1u);
  // Entries without a comma are skipped; extra fields are ignored.
  const PodAllocation lax = dut.plugin().decode_allocation("junk:GPU-a,NVIDIA,1,2,extra:;");
  ASSERT_EQ(lax.size(), 1u);
  ASSERT_EQ(lax[0].size(), 1u);
  EXPECT_EQ(lax[0][0].cores, 2);
}

TEST(AllocationAnnotation, RoundTrips) {
  const DeviceUnderTest dut("nvidia");
  Allocation a;
  const std::vector<std::vector<std::tuple<std::string, std::string, std::int64_t, std::int32_t>>>
      spec = {{},
              {{"GPU-1", "NVIDIA", 1000, 10}, {"GPU-2", "NVIDIA", 2000, 20}},
              {},
              {{"GPU-1[0-1]", "NVIDIA", 5120, 14}}};
  const std::string text = dut.plugin().encode_allocation(a.build(spec));
  const PodAllocation back = dut.plugin().decode_allocation(text);
  ASSERT_EQ(back.size(), spec.size());
  for (std::size_t c = 0; c < spec.size(); ++c) {
    ASSERT_EQ(back[c].size(), spec[c].size()) << c;
    for (std::size_t d = 0; d < spec[c].size(); ++d) {
      EXPECT_EQ(back[c][d].id, std::get<0>(spec[c][d]));
      EXPECT_EQ(back[c][d].type, std::get<1>(spec[c][d]));
      EXPECT_EQ(back[c][d].memory_mib, std::get<2>(spec[c][d]));
      EXPECT_EQ(back[c][d].cores, std::get<3>(spec[c][d]));
    }
  }
}

TEST(AllocationAnnotation, MalformedValuesAreInvalidArgument) {
  const DeviceUnderTest dut("nvidia");
  for (const char* bad : {"GPU-a,NVIDIA,1000:;", "GPU-a,NVIDIA:;", "GPU-a,NVIDIA,lots,10:;",
                          "GPU-a,NVIDIA,1000,ten:;", "GPU-a,NVIDIA,1000,99999999999:;"}) {
    try {
      static_cast<void>(dut.plugin().decode_allocation(bad));
      ADD_FAILURE() << "accepted " << bad;
    } catch (const CallError& e) {
      EXPECT_EQ(e.status(), HAMI_INVALID_ARGUMENT) << bad;
      EXPECT_NE(std::string(e.what()).find("segment 0 device"), std::string::npos) << e.what();
    }
  }
}

TEST(AllocationAnnotation, SeparatorsInIdsOrTypesCannotBeEncoded) {
  const DeviceUnderTest dut("nvidia");
  Allocation a;
  for (const char* id : {"GPU,a", "GPU:a", "GPU;a"}) {
    try {
      static_cast<void>(dut.plugin().encode_allocation(a.build({{{id, "NVIDIA", 1, 1}}})));
      ADD_FAILURE() << "encoded " << id;
    } catch (const CallError& e) {
      EXPECT_EQ(e.status(), HAMI_INVALID_ARGUMENT);
      EXPECT_NE(std::string(e.what()).find("contains a separator"), std::string::npos);
    }
  }
  EXPECT_THROW(
      static_cast<void>(dut.plugin().encode_allocation(a.build({{{"GPU-a", "A;B", 1, 1}}}))),
      CallError);
}

// HAMi 7.7#1 / issue #2899: on nodes that register model names, HAMi drops
// the empty segments of containers without GPUs and shifts the positions the
// device plugin relies on. Here a pod [init without GPU, init with 1 GPU,
// sidecar without GPU, worker with 2 GPUs] is fitted on real A100s and the
// annotation keeps one segment per container.
TEST(AllocationAnnotation, OneSegmentPerContainerOnRealModelNames) {
  const DeviceUnderTest dut("nvidia");
  PodFixture pod;
  pod.container({"init-setup", true, {}, {}, {}})
      .container(
          {"init-warmup", true, {{"nvidia.com/gpu", "1"}, {"nvidia.com/gpumem", "4000"}}, {}, {}})
      .container({"sidecar", false, {}, {}, {}})
      .container(
          {"worker",
           false,
           {{"nvidia.com/gpu", "2"}, {"nvidia.com/gpumem", "20000"}, {"nvidia.com/gpucores", "50"}},
           {},
           {}});
  const hami_pod_view& view = pod.view();
  ASSERT_EQ(view.init_count, 2u);

  std::vector<DeviceState> node;
  for (int i = 0; i < 4; ++i) {
    DeviceState d;
    d.id = "GPU-a100-" + std::to_string(i);
    d.type = "NVIDIA A100-SXM4-40GB";
    d.memory_mib = 40960;
    node.push_back(d);
  }
  std::vector<std::vector<std::tuple<std::string, std::string, std::int64_t, std::int32_t>>> spec;
  for (std::size_t c = 0; c < view.containers_len; ++c) {
    const hami_device_request req = dut.plugin().container_request(view, c).request;
    spec.emplace_back();
    if (req.count == 0)
      continue;
    FitFixture f(node);
    std::vector<hami_fit_pick> picks(static_cast<std::size_t>(req.count));
    const FitResult r = dut.plugin().fit(f.input(view, req, 0, nullptr, c), picks);
    ASSERT_TRUE(r.fits) << r.reason;
    for (std::size_t p = 0; p < r.picks_len; ++p) {
      spec.back().emplace_back(f.device(picks[p].device).id,
                               std::string(picks[p].type.ptr, picks[p].type.len),
                               picks[p].memory_mib, picks[p].cores);
    }
  }
  Allocation a;
  const std::string text = dut.plugin().encode_allocation(a.build(spec));
  EXPECT_EQ(text,
            ";GPU-a100-0,NVIDIA,4000,0:;;GPU-a100-0,NVIDIA,20000,50:GPU-a100-1,NVIDIA,20000,50:;");
  const PodAllocation back = dut.plugin().decode_allocation(text);
  ASSERT_EQ(back.size(), 4u);
  EXPECT_TRUE(back[0].empty());
  EXPECT_EQ(back[1].size(), 1u);
  EXPECT_TRUE(back[2].empty());
  EXPECT_EQ(back[3].size(), 2u);
}

TEST(AllocationAnnotation, AmdKeepsTheProductTypeAndCuCount) {
  // §4.2: 1 GPU, 16 GiB, 25 % of 304 CUs → 76 CUs.
  const DeviceUnderTest dut("amd");
  PodFixture pod;
  pod.container({"main",
                 false,
                 {{"amd.com/gpu", "1"}, {"amd.com/gpumem", "16384"}, {"amd.com/gpucores", "25"}},
                 {},
                 {}});
  const hami_device_request req = dut.plugin().container_request(pod.view(), 0).request;
  DeviceState mi300;
  mi300.id = "amd-gpu-0";
  mi300.type = "AMD Instinct MI300X VF";
  mi300.count = 4;
  mi300.memory_mib = 196608;
  mi300.cores = 304;
  FitFixture f({mi300});
  std::vector<hami_fit_pick> picks(1);
  const FitResult r = dut.plugin().fit(f.input(pod.view(), req), picks);
  ASSERT_TRUE(r.fits) << r.reason;
  const std::string type(picks[0].type.ptr, picks[0].type.len);
  Allocation a;
  const std::string text = dut.plugin().encode_allocation(
      a.build({{{"amd-gpu-0", type, picks[0].memory_mib, picks[0].cores}}}));
  EXPECT_EQ(text, "amd-gpu-0,AMD Instinct MI300X VF,16384,76:;");
  const PodAllocation back = dut.plugin().decode_allocation(text);
  ASSERT_EQ(back.size(), 1u);
  ASSERT_EQ(back[0].size(), 1u);
  EXPECT_EQ(back[0][0].type, "AMD Instinct MI300X VF");
}

}  // namespace
}  // namespace hami::testing
