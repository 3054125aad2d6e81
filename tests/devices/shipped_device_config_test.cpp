// config/device-config.yaml, read the way the host reads it (YAML section →
// JSON), is accepted by the vendor plugins and means HAMi's chart defaults.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "config/device_config.hpp"
#include "config/yaml_json.hpp"
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

TEST(ShippedDeviceConfig, BirenSectionMeansTheChartDefault) {
  const auto section = shipped().section_json("biren");
  ASSERT_TRUE(section.has_value());
  const DeviceUnderTest dut("biren", *section);
  EXPECT_EQ(dut.plugin().description().count_resource, "birentech.com/gpu");
}

TEST(ShippedDeviceConfig, EveryIluvatarElementIsAnInstanceConfig) {
  // HAMi's `iluvatars` list: each element, as an inline config, is accepted
  // by iluvatar.so and means the chart's names for its chip.
  const YAML::Node list = YAML::LoadFile(HAMI_SHIPPED_DEVICE_CONFIG)["iluvatars"];
  ASSERT_TRUE(list.IsSequence());
  std::vector<std::string> words;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string json = config::yaml_to_json(list[i], "device-config.yaml", "iluvatars");
    const DeviceUnderTest dut("iluvatar", json);
    const DeviceDescription& d = dut.plugin().description();
    words.push_back(d.vendor);
    EXPECT_EQ(d.count_resource, "iluvatar.ai/" + d.vendor + "-vgpu");
    EXPECT_EQ(d.memory_resource, "iluvatar.ai/" + d.vendor + ".vMem");
    EXPECT_EQ(d.cores_resource, "iluvatar.ai/" + d.vendor + ".vCore");
  }
  EXPECT_EQ(words, (std::vector<std::string>{"MR-V100", "MR-V50", "BI-V150", "BI-V100"}));
}

TEST(ShippedDeviceConfig, CambriconAndVastaiSectionsMeanTheChartDefaults) {
  const auto mlu = shipped().section_json("cambricon");
  ASSERT_TRUE(mlu.has_value());
  const DeviceUnderTest cambricon("cambricon", *mlu);
  EXPECT_EQ(cambricon.plugin().description().count_resource, "cambricon.com/vmlu");
  EXPECT_EQ(cambricon.plugin().description().memory_resource, "cambricon.com/mlu.smlu.vmemory");
  const auto va = shipped().section_json("vastai");
  ASSERT_TRUE(va.has_value());
  const DeviceUnderTest vastai("vastai", *va);
  EXPECT_EQ(vastai.plugin().description().count_resource, "vastaitech.com/va");
}

TEST(ShippedDeviceConfig, EveryAscendElementIsAnInstanceConfig) {
  // HAMi's `vnpus.configs` list: each element, as an inline config, is
  // accepted by ascend.so and names the chart's resources for its chip.
  const YAML::Node list = YAML::LoadFile(HAMI_SHIPPED_DEVICE_CONFIG)["vnpus"]["configs"];
  ASSERT_TRUE(list.IsSequence());
  std::vector<std::string> words;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string json = config::yaml_to_json(list[i], "device-config.yaml", "vnpus");
    const DeviceUnderTest dut("ascend", json);
    const DeviceDescription& d = dut.plugin().description();
    words.push_back(d.vendor);
    EXPECT_EQ(d.count_resource, "huawei.com/" + d.vendor);
    EXPECT_EQ(d.memory_resource, "huawei.com/" + d.vendor + "-memory");
  }
  EXPECT_EQ(words,
            (std::vector<std::string>{"Ascend910A", "Ascend910B2", "Ascend910B3", "Ascend910B4-1",
                                      "Ascend910B4", "Ascend310P", "Ascend910C"}));
}

}  // namespace
}  // namespace hami::testing
