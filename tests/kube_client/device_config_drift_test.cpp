// The device-config comparison with the ConfigMap HAMi's device plugins
// read (plugins.compareDeviceConfigMap, docs/cutover.md §6): which keys
// differ, and what the check logs against the fake API server.
#include "kube/device_config_drift.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <thread>

#include "fake_apiserver.hpp"
#include "kube/api_client.hpp"

namespace hami::kube {
namespace {

using hami::testing::FakeApiServer;
using hami::testing::FakeApiServerOptions;
using Keys = std::vector<std::string>;

const std::vector<DeviceConfigSection> kOurs = {
    {"nvidia",
     R"({"resourceCountName":"nvidia.com/gpu","deviceSplitCount":10,"deviceMemoryScaling":1,)"
     R"("migProfileAllowlist":[{"models":["A100"],"profiles":["1g.5gb"]}]})"},
    {"amd", R"({"resourceCountName":"amd.com/gpu"})"},
};

constexpr const char* kHamiSame = R"(nvidia:
  resourceCountName: nvidia.com/gpu
  deviceSplitCount: 10
  deviceMemoryScaling: 1.0
  migProfileAllowlist:
  - models: [A100]
    profiles: [1g.5gb]
amd:
  resourceCountName: amd.com/gpu
cambricon:
  resourceCountName: cambricon.com/vmlu
)";

TEST(DeviceConfigDifferences, NoneWhenTheSectionsOfOurPluginsAgree) {
  // 1 and 1.0 are the same number; HAMi's other vendors are not compared.
  EXPECT_EQ(device_config_differences(kOurs, kHamiSame), Keys{});
}

TEST(DeviceConfigDifferences, NamesEveryKeyThatDiffersOrIsMissingOnOneSide) {
  const std::string hami = R"(nvidia:
  resourceCountName: nvidia.com/gpu
  deviceSplitCount: 4
  deviceCoreScaling: 2
  migProfileAllowlist:
  - models: [A100, A30]
    profiles: [1g.5gb]
amd: {}
)";
  EXPECT_EQ(device_config_differences(kOurs, hami),
            (Keys{"amd.resourceCountName", "nvidia.deviceCoreScaling", "nvidia.deviceMemoryScaling",
                  "nvidia.deviceSplitCount", "nvidia.migProfileAllowlist"}));
}

TEST(DeviceConfigDifferences, NestedKeysAreJoinedAndAMissingSectionIsEmpty) {
  const std::vector<DeviceConfigSection> ours = {{"hygon", R"({"a":{"b":1,"c":"x"}})"}};
  EXPECT_EQ(device_config_differences(ours, "hygon:\n  a:\n    b: 2\n    c: x\n"),
            Keys{"hygon.a.b"});
  EXPECT_EQ(device_config_differences(ours, "nvidia: {}\n"), (Keys{"hygon.a.b", "hygon.a.c"}));
  // A quoted number is a string, not the number.
  EXPECT_EQ(device_config_differences(ours, "hygon:\n  a:\n    b: \"1\"\n    c: x\n"),
            Keys{"hygon.a.b"});
}

TEST(DeviceConfigDifferences, RefusesWhatIsNotAMappingOfSections) {
  EXPECT_THROW(device_config_differences(kOurs, "- a\n- b\n"), std::runtime_error);
  EXPECT_THROW(device_config_differences(kOurs, "nvidia: [1, 2]\n"), std::runtime_error);
  EXPECT_THROW(device_config_differences(kOurs, "nvidia: {a: [}\n"), std::runtime_error);
}

std::string configmap_json(const std::string& yaml) {
  std::string escaped;
  for (char c : yaml)
    escaped += c == '\n' ? std::string("\\n") : c == '"' ? std::string("\\\"") : std::string(1, c);
  return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"hami-scheduler-device",)"
         R"("namespace":"kube-system"},"data":{"device-config.yaml":")" +
         escaped + R"("}})";
}

class DeviceConfigDriftCheckTest : public ::testing::Test {
 protected:
  DeviceConfigDriftCheckTest()
      : logger_(log::Level::info, log::Format::text, &out_),
        api_(std::make_shared<ApiClient>(config())) {}

  ApiConfig config() const {
    ApiConfig c;
    c.server = server_.url();
    c.origin = "test";
    c.token = std::make_shared<StaticTokenSource>("tok");
    c.qps = 0;
    c.request_timeout = std::chrono::seconds(5);
    return c;
  }
  std::string log_text() const { return out_.str(); }

  FakeApiServer server_{FakeApiServerOptions{false, "tok", 10000, {}}};
  std::ostringstream out_;
  log::Logger logger_;
  std::shared_ptr<ApiClient> api_;
};

TEST_F(DeviceConfigDriftCheckTest, WarnsNamingTheKeysThenSaysWhenTheyAgreeAgain) {
  server_.apply(
      configmap_json("nvidia:\n  resourceCountName: nvidia.com/gpu\n"
                     "  deviceSplitCount: 4\n  deviceMemoryScaling: 1\n"
                     "  migProfileAllowlist: [{models: [A100], profiles: [1g.5gb]}]\n"
                     "amd:\n  resourceCountName: amd.com/gpu\n"));
  DeviceConfigDriftCheck check(api_, "kube-system", "hami-scheduler-device", kOurs, logger_);
  EXPECT_EQ(check.check(), Keys{"nvidia.deviceSplitCount"});
  const std::string first = log_text();
  EXPECT_NE(first.find("device config differs from the ConfigMap HAMi's device plugins read"),
            std::string::npos)
      << first;
  EXPECT_NE(first.find("configMap=kube-system/hami-scheduler-device"), std::string::npos) << first;
  EXPECT_NE(first.find("keys=nvidia.deviceSplitCount"), std::string::npos) << first;
  // The same outcome again is not logged again.
  EXPECT_EQ(check.check(), Keys{"nvidia.deviceSplitCount"});
  EXPECT_EQ(log_text(), first);

  server_.apply(configmap_json(kHamiSame));
  EXPECT_EQ(check.check(), Keys{});
  EXPECT_NE(log_text().find("device config matches the ConfigMap HAMi's device plugins read"),
            std::string::npos)
      << log_text();
}

TEST_F(DeviceConfigDriftCheckTest, WarnsWhenTheConfigMapCannotBeRead) {
  DeviceConfigDriftCheck check(api_, "kube-system", "hami-scheduler-device", kOurs, logger_);
  EXPECT_EQ(check.check(), std::nullopt);
  EXPECT_NE(log_text().find("device config not compared with the ConfigMap HAMi's device "
                            "plugins read"),
            std::string::npos)
      << log_text();
  server_.apply(
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"hami-scheduler-device",)"
      R"("namespace":"kube-system"},"data":{"config.json":"{}"}})");
  EXPECT_EQ(check.check(), std::nullopt);
  EXPECT_NE(log_text().find("the ConfigMap has no data.device-config.yaml"), std::string::npos)
      << log_text();
}

TEST_F(DeviceConfigDriftCheckTest, StartComparesAtOnceAndStopEndsTheLoop) {
  server_.apply(configmap_json(kHamiSame));
  DeviceConfigDriftCheck check(api_, "kube-system", "hami-scheduler-device", kOurs, logger_,
                               std::chrono::hours(1));
  check.start();
  // The first comparison runs at start; the next would be an hour later.
  for (int i = 0; i < 500 && server_.requests().empty(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  check.stop();
  ASSERT_EQ(server_.requests().size(), 1U);
  EXPECT_EQ(server_.requests()[0].path,
            "/api/v1/namespaces/kube-system/configmaps/hami-scheduler-device");
}

}  // namespace
}  // namespace hami::kube
