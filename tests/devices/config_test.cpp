// Plugin configuration through create()/describe(): HAMi chart defaults,
// HAMi device-config keys, and precise rejection of bad sections.
#include <gtest/gtest.h>

#include "device_under_test.hpp"
#include "raw_device_plugin.hpp"

namespace hami::testing {
namespace {

TEST(DeviceConfig, NvidiaChartDefaults) {
  const DeviceUnderTest dut("nvidia");
  const DeviceDescription& d = dut.plugin().description();
  EXPECT_EQ(d.vendor, "NVIDIA");
  EXPECT_EQ(d.count_resource, "nvidia.com/gpu");
  EXPECT_EQ(d.memory_resource, "nvidia.com/gpumem");
  EXPECT_EQ(d.memory_percent_resource, "nvidia.com/gpumem-percentage");
  EXPECT_EQ(d.cores_resource, "nvidia.com/gpucores");
  EXPECT_EQ(d.priority_resource, "nvidia.com/priority");
  EXPECT_EQ(d.register_annotation, "hami.io/node-nvidia-register");
  EXPECT_EQ(d.handshake_annotation, "hami.io/node-handshake");
  EXPECT_EQ(d.to_allocate_annotation, "hami.io/vgpu-devices-to-allocate");
  EXPECT_EQ(d.allocated_annotation, "hami.io/vgpu-devices-allocated");
  EXPECT_EQ(d.memory_factor, 1);
}

TEST(DeviceConfig, AmdChartDefaults) {
  const DeviceUnderTest dut("amd");
  const DeviceDescription& d = dut.plugin().description();
  EXPECT_EQ(d.vendor, "AMD");
  EXPECT_EQ(d.count_resource, "amd.com/gpu");
  EXPECT_EQ(d.memory_resource, "amd.com/gpumem");
  EXPECT_EQ(d.memory_percent_resource, "");
  EXPECT_EQ(d.cores_resource, "amd.com/gpucores");
  EXPECT_EQ(d.priority_resource, "");
  EXPECT_EQ(d.register_annotation, "hami.io/node-amd-register");
  EXPECT_EQ(d.handshake_annotation, "");
  EXPECT_EQ(d.to_allocate_annotation, "hami.io/amd-devices-to-allocate");
  EXPECT_EQ(d.allocated_annotation, "hami.io/amd-devices-allocated");
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
  EXPECT_EQ(dut.plugin().description().count_resource, "nvidia.com/gpu");
}

TEST(DeviceConfig, NullKeepsTheDefault) {
  const DeviceUnderTest dut("nvidia", R"({"resourceCountName": null, "defaultGPUNum": null})");
  EXPECT_EQ(dut.plugin().description().count_resource, "nvidia.com/gpu");
}

TEST(DeviceConfig, CustomNames) {
  const DeviceUnderTest dut(
      "amd", R"({"resourceCountName": "amd.com/vgpu", "resourceMemoryName": "amd.com/vram"})");
  EXPECT_EQ(dut.plugin().description().count_resource, "amd.com/vgpu");
  EXPECT_EQ(dut.plugin().description().memory_resource, "amd.com/vram");
}

const std::vector<std::tuple<std::string, std::string, std::string>>& bad_sections() {
  static const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
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
  return cases;
}

// The host validates the section against the plugin's schema before create.
TEST(DeviceConfig, HostRejectsBadSections) {
  for (const auto& [plugin, config, message] : bad_sections()) {
    try {
      DeviceUnderTest dut(plugin, config);
      ADD_FAILURE() << "accepted " << config;
    } catch (const host::PluginLoadError& e) {
      EXPECT_EQ(e.kind(), host::PluginErrorKind::ConfigRejected) << config << " → " << e.what();
    }
  }
}

// The plugin validates again in create(), so a host that skips validation
// still gets a precise INVALID_ARGUMENT instead of a misconfigured instance.
TEST(DeviceConfig, CreateRejectsBadSectionsWithThePlace) {
  for (const auto& [plugin, config, message] : bad_sections()) {
    const RawLibrary library(DeviceUnderTest::plugin_dir() + "/" + plugin + ".so");
    try {
      RawInstance instance(library, config);
      ADD_FAILURE() << "accepted " << config;
    } catch (const RawCallError& e) {
      EXPECT_EQ(e.status(), HAMI_INVALID_ARGUMENT) << config;
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos)
          << config << " → " << e.what();
    }
  }
}

}  // namespace
}  // namespace hami::testing
