// config/device-config.yaml, read the way the host reads it (YAML section →
// JSON), is accepted by the vendor plugins and means HAMi's chart defaults.
#include <gtest/gtest.h>

#include "config/device_config.hpp"
#include "device_under_test.hpp"
#include "k8s_views.hpp"

namespace hami::testing {
namespace {

const config::DeviceConfigFile& shipped() {
  static const config::DeviceConfigFile file =
      config::DeviceConfigFile::load(HAMI_SHIPPED_DEVICE_CONFIG, "deviceConfigFile");
  return file;
}

TEST(ShippedDeviceConfig, NvidiaSectionMeansTheChartDefaults) {
  const auto section = shipped().section_json("nvidia");
  ASSERT_TRUE(section.has_value());
  const DeviceUnderTest configured("nvidia", *section);
  const DeviceUnderTest defaults("nvidia", "{}");
  PodFixture pod;
  pod.container({"gpu", false, {{"nvidia.com/gpumem", "3000"}}, {}, {}});
  const ContainerMutation a = configured.plugin().mutate_container(pod.view(), 0);
  const ContainerMutation b = defaults.plugin().mutate_container(pod.view(), 0);
  EXPECT_EQ(a.limits, b.limits);
  EXPECT_EQ(a.env, b.env);
  EXPECT_EQ(a.runtime_class, b.runtime_class);
  ASSERT_EQ(a.limits.size(), 1u);
  EXPECT_EQ(a.limits[0], (std::pair<std::string, std::string>{"nvidia.com/gpu", "1"}));
  EXPECT_EQ(configured.plugin().description().memory_factor, 1);
}

TEST(ShippedDeviceConfig, AmdSectionIsAccepted) {
  const auto section = shipped().section_json("amd");
  ASSERT_TRUE(section.has_value());
  const DeviceUnderTest dut("amd", *section);
  EXPECT_EQ(dut.plugin().description().cores_resource, "amd.com/gpucores");
}

TEST(ShippedDeviceConfig, HygonSectionMeansTheChartDefaults) {
  const auto section = shipped().section_json("hygon");
  ASSERT_TRUE(section.has_value());
  const DeviceUnderTest configured("hygon", *section);
  const DeviceUnderTest defaults("hygon", "{}");
  for (const DeviceUnderTest* dut : {&configured, &defaults}) {
    const DeviceDescription& d = dut->plugin().description();
    EXPECT_EQ(d.count_resource, "hygon.com/dcunum");
    EXPECT_EQ(d.memory_resource, "hygon.com/dcumem");
    EXPECT_EQ(d.cores_resource, "hygon.com/dcucores");
    EXPECT_EQ(d.memory_factor, 1);
  }
}

}  // namespace
}  // namespace hami::testing
