// MIG registration and description through nvidia.so: HAMi's
// TestGetNodeDevices_MigProfilesFromNode and Test_GetNodeDevices' MIG
// profiles, the typed decoding of migProfiles, describe's 1.1 members and
// the migProfileAllowlist rule of TestValidateMigProfileAllowlist.
#include <gtest/gtest.h>

#include "device_under_test.hpp"
#include "mig_plugin.hpp"

namespace hami::testing {
namespace {

std::string sv(hami_str s) {
  return s.len == 0 ? std::string() : std::string(s.ptr, s.len);
}

TEST(NvidiaMigNode, TestGetNodeDevices_MigProfilesFromNode) {
  const MigPlugin plugin;
  const std::vector<RawDevice> d = plugin.decode_register(
      R"([{"id":"GPU-0","count":7,"devmem":40960,"devcore":100,"type":"NVIDIA-A100-SXM4-40GB","numa":0,"health":true,"mode":"mig","migProfiles":[{"name":"1g.5gb","memoryMB":5120,"core":14,"sliceCount":1,"instanceCount":7,"multiprocessorCount":14,"placements":[{"start":6,"size":1}]}]}])");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].mode, "mig");
  EXPECT_EQ(d[0].count, 7);
  // One profile, 1g.5gb, placements [{6,1}], in nvidia.so's attributes text.
  EXPECT_EQ(d[0].attributes, "5120,14,1,6+1,6:1g.5gb");
}

TEST(NvidiaMigNode, AllProfilesAndPlacementsAreKeptInOrder) {
  const MigPlugin plugin;
  const std::vector<RawDevice> d = plugin.decode_register(
      "[" + mig_register_device("GPU-a", 7, 40960, a100_mig_profiles()) + "]");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].attributes,
            "5120,14,1,0+1/1+1/2+1/3+1/4+1/5+1/6+1,6:1g.5gb;10240,28,2,0+2/2+2/4+2,7:2g.10gb;"
            "20480,42,3,0+4/4+4,7:3g.20gb");
}

TEST(NvidiaMigNode, OnlyMigModeDevicesCarryProfiles) {
  const MigPlugin plugin;
  const std::vector<RawDevice> d = plugin.decode_register(
      "[" + mig_register_device("GPU-a", 7, 40960, a100_mig_profiles(), "hami-core") + "," +
      R"({"id":"GPU-b","mode":"mig","migProfiles":null,"health":true},)" +
      R"({"id":"GPU-c","mode":"mig","migProfiles":[null,{"name":"x","placements":[null]}]}])");
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].attributes, "");
  EXPECT_EQ(d[1].attributes, "");
  // null elements are zero-valued, as in Go.
  EXPECT_EQ(d[2].attributes, "0,0,0,,0:;0,0,0,0+0,1:x");
}

TEST(NvidiaMigNode, RepeatedMigProfilesKeyKeepsTheLastList) {
  const MigPlugin plugin;
  const std::vector<RawDevice> d = plugin.decode_register(
      R"([{"id":"GPU-a","mode":"mig","migProfiles":[{"name":"a"}],"MIGPROFILES":[{"Name":"b","Placements":[{"Start":1,"Size":2}],"placements":[{"start":3,"size":4}]}]}])");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].attributes, "0,0,0,3+4,1:b");
}

TEST(NvidiaMigNode, UnknownKeysInsideProfilesAndPlacementsAreSkipped) {
  const MigPlugin plugin;
  const std::vector<RawDevice> d = plugin.decode_register(
      R"([{"id":"GPU-a","mode":"mig","migProfiles":[{"x":{"a":[1,{"b":[]}]},"name":"1g.5gb","instanceCount":7,"placements":[{"y":[{"z":null}],"start":6,"size":1,"w":"s"}],"memoryMB":5120,"v":true}],"count":7,"health":true}])");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].attributes, "5120,0,0,6+1,6:1g.5gb");
  EXPECT_EQ(d[0].count, 7);
  EXPECT_EQ(d[0].flags, HAMI_DEVICE_HEALTHY);
}

TEST(NvidiaMigNode, MalformedMigProfilesAreInvalidArgumentWithPlace) {
  const MigPlugin plugin;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"([{"id":"GPU-a","migProfiles":{"name":"1g.5gb"}}])",
       "element 0 key \"migProfiles\": unexpected object"},
      {R"([{"id":"GPU-a","migProfiles":[5]}])",
       "element 0 key \"migProfiles\": expected objects, found number"},
      {R"([{"id":"GPU-a","migProfiles":[{"memoryMB":"5120"}]}])",
       "element 0 migProfiles[0] key \"memoryMB\": unexpected string"},
      {R"([{"id":"GPU-a","migProfiles":[{"core":2147483648}]}])",
       "element 0 migProfiles[0] key \"core\": value out of range"},
      {R"([{"id":"GPU-a","migProfiles":[{"sliceCount":-1}]}])",
       "element 0 migProfiles[0] key \"sliceCount\": value out of range"},
      {R"([{"id":"GPU-a","migProfiles":[{"name":7}]}])",
       "element 0 migProfiles[0] key \"name\": unexpected number"},
      {R"([{"id":"GPU-a","migProfiles":[{"placements":[{"start":1.5}]}]}])",
       "element 0 migProfiles[0] placements[0] key \"start\": unexpected number with a fraction "
       "or exponent"},
      {R"([{"id":"GPU-a","migProfiles":[{"placements":[{"size":-1}]}]}])",
       "element 0 migProfiles[0] placements[0] key \"size\": value out of range"},
      {R"([{"id":"GPU-a","migProfiles":[{"placements":[[1]]}]}])",
       "element 0 migProfiles[0] key \"placements\": expected objects, found array"},
      {R"([{"id":"GPU-a","migProfiles":[{"placements":{"start":1}}]}])",
       "element 0 migProfiles[0] key \"placements\": unexpected object"},
      {R"([{"id":"GPU-a","migProfiles":[{"placements":[{"start":true}]}]}])",
       "element 0 migProfiles[0] placements[0] key \"start\": unexpected boolean"},
  };
  for (const auto& [value, message] : cases) {
    try {
      plugin.decode_register(value);
      ADD_FAILURE() << value;
    } catch (const RawCallError& e) {
      EXPECT_EQ(e.status(), HAMI_INVALID_ARGUMENT) << value;
      EXPECT_EQ(std::string(e.what()), "node node-mig: hami.io/node-nvidia-register: " + message)
          << value;
    }
  }
}

TEST(NvidiaMigNode, DescribeDeclaresMultiPickTheMigAnnotationAndInstanceMetrics) {
  const MigPlugin plugin;
  const hami_device_description d = plugin.describe();
  EXPECT_EQ(d.vendor_flags, HAMI_VENDOR_MULTI_PICK);
  EXPECT_EQ(d.cores_unit, HAMI_CORES_PERCENT);
  ASSERT_EQ(d.allocation_annotations_len, 1u);
  EXPECT_EQ(sv(d.allocation_annotations[0]), "hami.io/vgpu-mig-allocations");
  ASSERT_EQ(d.partition_metrics_len, 2u);
  const hami_metric_family& info = d.partition_metrics[0];
  EXPECT_EQ(sv(info.name), "hami_node_gpu_mig_instance_info");
  EXPECT_EQ(sv(info.help), "Realized MIG instance identity and scheduler placement");
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < info.labels_len; ++i)
    labels.push_back(sv(info.labels[i]));
  EXPECT_EQ(labels,
            (std::vector<std::string>{"mig_uuid", "profile", "gpu_instance_id",
                                      "compute_instance_id", "placement_start", "placement_size"}));
  EXPECT_EQ(info.legacy, 0u);
  const hami_metric_family& legacy = d.partition_metrics[1];
  EXPECT_EQ(sv(legacy.name), "nodeGPUMigInstance");
  EXPECT_EQ(sv(legacy.help), "GPU Sharing mode. 0 for hami-core, 1 for mig, 2 for mps");
  ASSERT_EQ(legacy.labels_len, 1u);
  EXPECT_EQ(sv(legacy.labels[0]), "migname");
  EXPECT_EQ(legacy.legacy, 1u);
}

bool accepted(const std::string& allowlist) {
  try {
    const DeviceUnderTest dut("nvidia", R"({"migProfileAllowlist": )" + allowlist + "}");
    return true;
  } catch (const host::PluginLoadError& e) {
    EXPECT_EQ(e.kind(), host::PluginErrorKind::ConfigRejected) << e.what();
    return false;
  }
}

TEST(NvidiaMigConfig, TestValidateMigProfileAllowlist) {
  EXPECT_TRUE(accepted(R"([{"models": ["A100"], "profiles": ["1g.5gb", "2g.10gb"]}])"));
  EXPECT_FALSE(accepted(R"([{"models": ["A100"]}])"));  // without profiles
  // ValidateMigProfileAllowlist's rule: models and profiles non-empty; a
  // profile splits at its first "." into a part of >= 2 characters ending
  // in "g" and the rest.
  EXPECT_FALSE(accepted(R"([{"models": [], "profiles": ["1g.5gb"]}])"));
  EXPECT_FALSE(accepted(R"([{"models": ["A100"], "profiles": []}])"));
  EXPECT_TRUE(accepted(R"([{"models": [""], "profiles": ["1g.5gb"]}])"));
  EXPECT_TRUE(accepted(R"([{"models": ["A100"], "profiles": ["xg.5gb"]}])"));
  EXPECT_TRUE(accepted(R"([{"models": ["A100"], "profiles": ["1g."]}])"));
  EXPECT_TRUE(accepted(R"([{"models": ["A100"], "profiles": ["1g.5gb.me"]}])"));
  EXPECT_TRUE(accepted(R"(null)"));
  EXPECT_FALSE(accepted(R"([{"models": ["A100"], "profiles": ["g.5gb"]}])"));
  EXPECT_FALSE(accepted(R"([{"models": ["A100"], "profiles": ["1g5gb"]}])"));
  EXPECT_FALSE(accepted(R"([{"models": ["A100"], "profiles": ["1x.5gb"]}])"));
  EXPECT_FALSE(accepted(R"([{"models": ["A100"], "profiles": [".1g.5gb"]}])"));
  EXPECT_FALSE(accepted(R"([{"models": ["A100"], "profiles": ["1.g.5gb"]}])"));
}

}  // namespace
}  // namespace hami::testing
