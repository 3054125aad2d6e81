// Plugin configuration through create()/describe(): HAMi chart defaults,
// HAMi device-config keys, and precise rejection of bad sections.
#include <gtest/gtest.h>

#include "device_under_test.hpp"

namespace hami::testing {
namespace {

std::string s(hami_str v) {
  return v.len == 0 ? std::string() : std::string(v.ptr, v.len);
}

TEST(DeviceConfig, NvidiaChartDefaults) {
  const DeviceUnderTest dut("nvidia");
  const hami_device_description d = dut.plugin().describe();
  EXPECT_EQ(s(d.vendor), "NVIDIA");
  EXPECT_EQ(s(d.count_resource), "nvidia.com/gpu");
  EXPECT_EQ(s(d.memory_resource), "nvidia.com/gpumem");
  EXPECT_EQ(s(d.memory_percent_resource), "nvidia.com/gpumem-percentage");
  EXPECT_EQ(s(d.cores_resource), "nvidia.com/gpucores");
  EXPECT_EQ(s(d.priority_resource), "nvidia.com/priority");
  EXPECT_EQ(s(d.register_annotation), "hami.io/node-nvidia-register");
  EXPECT_EQ(s(d.handshake_annotation), "hami.io/node-handshake");
  EXPECT_EQ(s(d.to_allocate_annotation), "hami.io/vgpu-devices-to-allocate");
  EXPECT_EQ(s(d.allocated_annotation), "hami.io/vgpu-devices-allocated");
  EXPECT_EQ(d.memory_factor, 1);
}

TEST(DeviceConfig, AmdChartDefaults) {
  const DeviceUnderTest dut("amd");
  const hami_device_description d = dut.plugin().describe();
  EXPECT_EQ(s(d.vendor), "AMD");
  EXPECT_EQ(s(d.count_resource), "amd.com/gpu");
  EXPECT_EQ(s(d.memory_resource), "amd.com/gpumem");
  EXPECT_EQ(s(d.memory_percent_resource), "");
  EXPECT_EQ(s(d.cores_resource), "amd.com/gpucores");
  EXPECT_EQ(s(d.priority_resource), "");
  EXPECT_EQ(s(d.register_annotation), "hami.io/node-amd-register");
  EXPECT_EQ(s(d.handshake_annotation), "");
  EXPECT_EQ(s(d.to_allocate_annotation), "hami.io/amd-devices-to-allocate");
  EXPECT_EQ(s(d.allocated_annotation), "hami.io/amd-devices-allocated");
  EXPECT_EQ(d.memory_factor, 1);
}

TEST(DeviceConfig, HamiChartSectionIsAccepted) {
  // The chart's nvidia section, including keys only the node side reads and
  // a key this plugin does not know.
  const DeviceUnderTest dut("nvidia", R"({
    "resourceCountName": "nvidia.com/gpu", "resourceMemoryName": "nvidia.com/gpumem",
    "resourceMemoryPercentageName": "nvidia.com/gpumem-percentage",
    "resourceCoreName": "nvidia.com/gpucores", "resourcePriorityName": "nvidia.com/priority",
    "overwriteEnv": false, "defaultMemory": 0, "defaultCores": 0, "defaultGPUNum": 1,
    "memoryFactor": 1, "deviceSplitCount": 10, "deviceMemoryScaling": 1.5,
    "deviceCoreScaling": 1, "preConfiguredDeviceMemory": 0, "libCudaLogLevel": 1,
    "enableNumaTopology": false, "gpuCorePolicy": "default", "runtimeClassName": "",
    "migProfileAllowlist": [{"models": ["A30"], "profiles": ["1g.6gb", "2g.12gb", "4g.24gb"]}],
    "nodeconfig": [{"name": "nodeA", "operatingmode": "hami-core"}]
  })");
  EXPECT_EQ(s(dut.plugin().describe().count_resource), "nvidia.com/gpu");
}

TEST(DeviceConfig, NullKeepsTheDefault) {
  const DeviceUnderTest dut("nvidia", R"({"resourceCountName": null, "defaultGPUNum": null})");
  EXPECT_EQ(s(dut.plugin().describe().count_resource), "nvidia.com/gpu");
}

TEST(DeviceConfig, CustomNames) {
  const DeviceUnderTest dut(
      "amd", R"({"resourceCountName": "amd.com/vgpu", "resourceMemoryName": "amd.com/vram"})");
  EXPECT_EQ(s(dut.plugin().describe().count_resource), "amd.com/vgpu");
  EXPECT_EQ(s(dut.plugin().describe().memory_resource), "amd.com/vram");
}

TEST(DeviceConfig, BadSectionsAreRejectedWithThePlace) {
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"nvidia", R"({"defaultGPUNum": "one"})", "config /defaultGPUNum violates schema rule"},
      {"nvidia", R"({"defaultGPUNum": -1})", "config /defaultGPUNum violates schema rule"},
      {"nvidia", R"({"defaultCores": 101})", "config /defaultCores violates schema rule 'maximum'"},
      {"nvidia", R"({"gpuCorePolicy": "sometimes"})",
       "config /gpuCorePolicy violates schema rule 'enum'"},
      {"nvidia", R"({"overwriteEnv": "yes"})", "config /overwriteEnv violates schema rule"},
      {"nvidia", R"({"migProfileAllowlist": [{"models": ["A30"]}]})",
       "config /migProfileAllowlist/0 violates schema rule 'required'"},
      {"nvidia", R"({"migProfileAllowlist": [{"models": ["A30"], "profiles": ["six-gig"]}]})",
       "config /migProfileAllowlist/0/profiles/0 violates schema rule 'pattern'"},
      {"nvidia", R"([])", "config / violates schema rule 'type'"},
      {"nvidia", R"({"defaultGPUNum": 1)", "nvidia config: config is not valid JSON at offset"},
      {"amd", R"({"resourceCountName": 7})",
       "config /resourceCountName violates schema rule 'type'"},
  };
  for (const auto& [plugin, config, message] : cases) {
    try {
      DeviceUnderTest dut(plugin, config);
      ADD_FAILURE() << "accepted " << config;
    } catch (const CallError& e) {
      EXPECT_EQ(e.status(), HAMI_INVALID_ARGUMENT) << config;
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos)
          << config << " → " << e.what();
    }
  }
}

}  // namespace
}  // namespace hami::testing
