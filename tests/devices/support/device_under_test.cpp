#include "device_under_test.hpp"

namespace hami::testing {

std::string DeviceUnderTest::library_path(const std::string& plugin) {
  return std::string(HAMI_TEST_PLUGIN_DIR) + "/" + plugin + ".so";
}

DeviceUnderTest::DeviceUnderTest(const std::string& plugin, const std::string& config_json)
    : library_(std::make_unique<RawLibrary>(library_path(plugin))),
      instance_(std::make_unique<RawInstance>(*library_, config_json)),
      handle_(std::make_unique<RawHandle>(*instance_, plugin)) {}

DeviceUnderTest::~DeviceUnderTest() = default;

}  // namespace hami::testing
