// iluvatar.so through its ABI: HAMi reference §7 and the cases of
// pkg/device/iluvatar/device_test.go (TestGetNodeDevices,
// TestPatchAnnotations, Test_MutateAdmission, Test_GenerateResourceRequests,
// TestFit_MutexRejectsUsedDevice, Test_Fit) with HAMi's expected values,
// HAMi's standard Fit table, and the decisions on §7.9 / X12.
#include <gtest/gtest.h>

#include "device_under_test.hpp"
#include "fit_run.hpp"
#include "k8s_views.hpp"
#include "request_run.hpp"
#include "share_fit_boundaries.hpp"
#include "standard_fit_table.hpp"

namespace hami::testing {
namespace {

// HAMi's test config: commonWord MR-V100 and the chart's names for it.
constexpr const char* kMrV100 = R"({"chipName": "MR-V100", "commonWord": "MR-V100",
  "resourceCountName": "iluvatar.ai/MR-V100-vgpu", "resourceMemoryName": "iluvatar.ai/MR-V100.vMem",
  "resourceCoreName": "iluvatar.ai/MR-V100.vCore"})";
constexpr const char* kCount = "iluvatar.ai/MR-V100-vgpu";
constexpr const char* kMem = "iluvatar.ai/MR-V100.vMem";
constexpr const char* kCore = "iluvatar.ai/MR-V100.vCore";
constexpr const char* kRegister = "hami.io/node-MR-V100-register";
constexpr const char* kHandshake = "hami.io/node-handshake-MR-V100";

TEST(IluvatarDescribe, EveryNameComesFromTheVendorWord) {
  const DeviceUnderTest dut("iluvatar", R"({"commonWord": "BI-V150"})");
  const DeviceDescription& d = dut.plugin().description();
  EXPECT_EQ(d.vendor, "BI-V150");
  EXPECT_EQ(d.count_resource, "iluvatar.ai/BI-V150-vgpu");
  EXPECT_EQ(d.memory_resource, "iluvatar.ai/BI-V150.vMem");
  EXPECT_EQ(d.cores_resource, "iluvatar.ai/BI-V150.vCore");
  EXPECT_EQ(d.register_annotation, "hami.io/node-BI-V150-register");
  EXPECT_EQ(d.handshake_annotation, "hami.io/node-handshake-BI-V150");
  EXPECT_EQ(d.to_allocate_annotation, "hami.io/BI-V150-devices-to-allocate");
  EXPECT_EQ(d.allocated_annotation, "hami.io/BI-V150-devices-allocated");
  EXPECT_EQ(d.memory_factor, 256);
  EXPECT_EQ(d.cores_unit, HAMI_CORES_PERCENT);
  const DeviceUnderTest defaults("iluvatar");
  EXPECT_EQ(defaults.plugin().description().vendor, "MR-V100");
  EXPECT_EQ(defaults.plugin().description().count_resource, "iluvatar.ai/MR-V100-vgpu");
  const DeviceUnderTest renamed("iluvatar",
                                R"({"commonWord": "BI-V100", "resourceCountName": "x.io/gpu"})");
  EXPECT_EQ(renamed.plugin().description().count_resource, "x.io/gpu");
  EXPECT_EQ(renamed.plugin().description().memory_resource, "iluvatar.ai/BI-V100.vMem");
}

TEST(IluvatarConfig, SchemaRejectsBadVendorWords) {
  EXPECT_THROW(DeviceUnderTest("iluvatar", R"({"commonWord": ""})"), host::PluginLoadError);
  EXPECT_THROW(DeviceUnderTest("iluvatar", R"({"commonWord": "a,b"})"), host::PluginLoadError);
  EXPECT_THROW(DeviceUnderTest("iluvatar", R"({"commonWord": 7})"), host::PluginLoadError);
  EXPECT_THROW(DeviceUnderTest("iluvatar", R"([{"commonWord": "BI-V150"}])"),
               host::PluginLoadError);
}

TEST(IluvatarAdmission, MutateAdmission) {
  const DeviceUnderTest dut("iluvatar", kMrV100);
  PodFixture pod;
  pod.container({"c1", false, {{kCount, "2"}, {kCore, "1"}}, {}, {}});
  pod.container({"c2", false, {{kCount, "1"}, {kCore, "30"}}, {}, {{"SOL_CONTINER_NAME", "x"}}});
  pod.container({"c3", false, {}, {{kCount, "1"}}, {}});
  ContainerMutation m = dut.plugin().mutate_container(pod.view(), 0);
  EXPECT_TRUE(m.uses_device);
  // A count above 1 makes the cores count × 100, whatever the user asked.
  EXPECT_EQ(m.limits, (Pairs{{kCore, "200"}}));
  EXPECT_EQ(m.env, (Pairs{{"SOL_CONTINER_NAME", "c1"}}));
  m = dut.plugin().mutate_container(pod.view(), 1);
  EXPECT_TRUE(m.uses_device);
  EXPECT_TRUE(m.limits.empty()) << "a count of 1 keeps the user's cores";
  EXPECT_TRUE(m.env.empty()) << "the container already defines SOL_CONTINER_NAME";
  m = dut.plugin().mutate_container(pod.view(), 2);
  EXPECT_FALSE(m.uses_device) << "requests only";
  EXPECT_TRUE(m.env.empty());
}

TEST(IluvatarRequests, GenerateResourceRequests) {
  const DeviceUnderTest dut("iluvatar", kMrV100);
  const Pairs all = {{kCount, "1"}, {kMem, "1000"}, {kCore, "100"}};
  expect_request(request(dut, all, all).request, 1, 256000, 0, 100);
  expect_request(request(dut, {}).request, 0, 0, 0, 0);
  expect_request(request(dut, {{kCount, "1"}}, {{kCount, "1"}}).request, 1, 0, 100, 0);
  for (const char* bad : {"16Gi", "16.0Gi", "8388608", "-1", "1.5"}) {
    const RequestResult r = request(dut, {{kCount, "1"}, {kMem, bad}});
    EXPECT_EQ(r.request.count, 0) << bad;
    EXPECT_EQ(r.warning, std::string("invalid iluvatar.ai/MR-V100.vMem value ") + bad +
                             " in container c1: must be an integer number of 256 MiB units "
                             "between 0 and 8388607");
  }
  expect_request(request(dut, {{kCount, "1"}, {kMem, "8388607"}}).request, 1, 2147483392, 0, 0);
  expect_request(request(dut, {}, {{kCount, "3"}, {kCore, "250"}}).request, 3, 0, 100, 250);
}

TEST(IluvatarRequests, CountsAndCoresOutOfRangeAreUnusable) {
  // HAMi X12 / §7.9c: HAMi wraps a count above INT32_MAX and takes negative
  // cores as given.
  const DeviceUnderTest dut("iluvatar", kMrV100);
  const std::vector<Pairs> cases = {{{kCount, "2200000000"}},
                                    {{kCount, "-1"}},
                                    {{kCount, "1.5"}},
                                    {{kCount, "1"}, {kCore, "-10"}},
                                    {{kCount, "1"}, {kCore, "2147483648"}},
                                    {{kCount, "1"}, {kCore, "0.5"}}};
  for (const Pairs& limits : cases) {
    const RequestResult r = request(dut, limits);
    EXPECT_EQ(r.request.count, 0) << limits.back().second;
    EXPECT_NE(r.warning, "") << limits.back().second;
  }
  const RequestResult zero = request(dut, {{kCount, "0"}});
  EXPECT_EQ(zero.request.count, 0);
  EXPECT_EQ(zero.warning, "");
}

TEST(IluvatarNode, GetNodeDevices) {
  const DeviceUnderTest dut("iluvatar", kMrV100);
  NodeFixture node("node-1");
  node.annotation(kRegister,
                  "GPU-bad51c5a-ed4c-591d-91bf-c04a12e19eae,10,8192,100,MR-V100,0,true:");
  const NodeInventory inv = dut.plugin().decode_node(node.view());
  ASSERT_EQ(inv.devices.size(), 1u);
  const DeviceRecord& d = inv.devices[0];
  EXPECT_EQ(d.id, "GPU-bad51c5a-ed4c-591d-91bf-c04a12e19eae");
  EXPECT_EQ(d.count, 10);
  EXPECT_EQ(d.memory_mib, 8192);
  EXPECT_EQ(d.cores, 100);
  EXPECT_EQ(d.type, "MR-V100");
  EXPECT_EQ(d.numa, 0);
  EXPECT_EQ(d.flags, HAMI_DEVICE_HEALTHY);
  EXPECT_EQ(d.mode, "hami-core");

  NodeFixture bare("node-2");
  try {
    static_cast<void>(dut.plugin().decode_node(bare.view()));
    FAIL();
  } catch (const CallError& e) {
    EXPECT_EQ(e.status(), HAMI_NOT_FOUND);
    EXPECT_EQ(std::string(e.what()),
              "iluvatar.decode_node: annos not found hami.io/node-MR-V100-register");
  }
  for (const auto& [value, message] : std::vector<std::pair<std::string, std::string>>{
           {"[]", "node annotation missing device separator"},
           {"", "node annotation missing device separator"},
           {"::", "no gpu found on node"}}) {
    NodeFixture n("node-3");
    n.annotation(kRegister, value);
    try {
      static_cast<void>(dut.plugin().decode_node(n.view()));
      ADD_FAILURE() << "accepted " << value;
    } catch (const CallError& e) {
      EXPECT_EQ(e.status(), HAMI_INVALID_ARGUMENT);
      EXPECT_EQ(std::string(e.what()), "iluvatar.decode_node: " + message);
    }
  }
  // Another chip's registration is not this instance's.
  NodeFixture other("node-4");
  other.annotation("hami.io/node-BI-V150-register", "GPU-0,16,65536,100,BI-V150,0,true:");
  EXPECT_FALSE(dut.plugin().decode_node_if_registered(other.view()).has_value());
}

TEST(IluvatarNode, HealthIsTheGenericHandshakeAndCleanupLeavesIt) {
  const DeviceUnderTest dut("iluvatar", kMrV100);
  NodeFixture expired("node-1");
  expired.annotation(kRegister, "GPU-0,10,8192,100,MR-V100,0,true:");
  expired.annotation(kHandshake, "Requesting_2025-01-07 00:00:00");
  HealthResult r = dut.plugin().node_health(expired.view(), 1900000000);
  EXPECT_FALSE(r.healthy);
  EXPECT_FALSE(r.needs_update);
  NodeFixture reported("node-2");
  reported.annotation(kRegister, "GPU-0,10,8192,100,MR-V100,0,true:");
  reported.annotation(kHandshake, "Reported_2025-01-07 00:00:00");
  r = dut.plugin().node_health(reported.view(), 1900000000);
  EXPECT_TRUE(r.healthy);
  EXPECT_TRUE(r.needs_update);
  ASSERT_EQ(r.writes.size(), 1u);
  EXPECT_EQ(r.writes[0].key, kHandshake);
  // §7.9b kept: HAMi's Iluvatar cleanup removes nothing.
  EXPECT_TRUE(dut.plugin().node_cleanup(expired.view()).empty());
}

TEST(IluvatarAllocation, PatchAnnotations) {
  const DeviceUnderTest dut("iluvatar", kMrV100);
  const std::string id = "k8s-gpu-iluvatar-0";
  const std::string type = "MR-V100";
  hami_alloc_device dev{};
  dev.struct_size = sizeof dev;
  dev.id = hami_str{id.data(), id.size()};
  dev.type = hami_str{type.data(), type.size()};
  const hami_container_alloc container{&dev, 1};
  EXPECT_EQ(dut.plugin().encode_allocation(std::span(&container, 1)),
            "k8s-gpu-iluvatar-0,MR-V100,0,0:;");
  EXPECT_EQ(dut.plugin().encode_allocation({}), "");
}

TEST(IluvatarFit, MutexRejectsUsedDevice) {
  const DeviceUnderTest dut("iluvatar", kMrV100);
  const FitOutcome o = run_fit(dut, {standard_card("MR-V100", "dev-0", 128, 1)},
                               make_request(1, 64, 0, 50), {}, HAMI_FIT_MUTEX);
  EXPECT_FALSE(o.result.fits);
  EXPECT_EQ(o.result.reason, "1/1 ExclusiveDeviceAllocateConflict");
}

TEST(IluvatarFit, CoreNotEnoughFailsOnMemoryFirst) {
  // Test_Fit "fit fail: core not enough": 512 MiB > 128 is checked first.
  const DeviceUnderTest dut("iluvatar", kMrV100);
  const FitOutcome o =
      run_fit(dut, {standard_card("MR-V100", "dev-0", 128, 0, 100)}, make_request(1, 512, 0, 50));
  EXPECT_FALSE(o.result.fits);
  EXPECT_EQ(o.result.reason, "1/1 CardInsufficientMemory");
}

TEST(IluvatarFit, StandardTable) {
  const DeviceUnderTest dut("iluvatar", kMrV100);
  for (const StandardFitCase& c :
       standard_fit_cases({"MR-V100", "hami.io/use-MR-V100-uuid", "hami.io/no-use-MR-V100-uuid"})) {
    expect_standard_fit(dut, c);
  }
}

TEST(IluvatarFit, MultiCardAdmissionMakesCardsExclusive) {
  // §7.9a kept: admission turned count 2 into cores 200, which fit takes as
  // 100 per card, so each card must be idle.
  const DeviceUnderTest dut("iluvatar", kMrV100);
  const FitOutcome o =
      run_fit(dut,
              {standard_card("MR-V100", "a", 8192, 1, 10), standard_card("MR-V100", "b", 8192),
               standard_card("MR-V100", "c", 8192)},
              make_request(2, 0, 100, 200));
  ASSERT_TRUE(o.result.fits);
  EXPECT_EQ(o.ids, (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(o.types, (std::vector<std::string>{"MR-V100", "MR-V100"}));
  EXPECT_EQ(o.picks[0].cores, 100);
  EXPECT_EQ(o.picks[0].memory_mib, 8192);
}

// Every capacity check of the share-fit at its boundary (reference §7.5).
TEST(IluvatarCapacity, EveryShareFitCheckAtItsBoundary) {
  const DeviceUnderTest dut("iluvatar", kMrV100);
  for (const BoundaryCase& c : share_fit_boundary_cases("MR-V100"))
    expect_boundary(dut, c);
}

}  // namespace
}  // namespace hami::testing
