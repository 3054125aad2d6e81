#include "device_under_test.hpp"

#include <stdexcept>

namespace hami::testing {

std::string DeviceUnderTest::plugin_dir() {
  return HAMI_TEST_PLUGIN_DIR;
}

DeviceUnderTest::DeviceUnderTest(const std::string& plugin, const std::string& config_json)
    : services_([](int32_t, std::string_view, std::string_view) {}, [] { return int64_t{0}; }) {
  host::LoaderOptions options;
  options.directory = plugin_dir();
  // Build trees can carry a permissive umask; the loader's own tests cover
  // the refusal of writable files.
  options.allow_writable = true;
  registry_ = host::PluginRegistry::load(
      options, {host::PluginSpec{plugin, plugin + ".so", HAMI_KIND_DEVICE, config_json}},
      services_);
  handle_ = registry_.device(plugin);
  if (handle_ == nullptr)
    throw std::logic_error("registry has no device plugin " + plugin);
}

}  // namespace hami::testing
