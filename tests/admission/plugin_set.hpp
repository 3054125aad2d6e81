// PluginSet: the device plugins and the admission plugin a test service
// runs with, loaded from the build's plugin folders through the real
// loader (negotiation, schema validation, handles).
#pragma once

#include <hami/admission.h>
#include <hami/device.h>

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/device_config.hpp"
#include "plugins/admission_plugin_handle.hpp"
#include "plugins/device_plugin_handle.hpp"
#include "plugins/host_services.hpp"
#include "plugins/plugin_loader.hpp"

namespace hami::admission::testing {

// The build's folder of product plugins, and the tests' own (probe.so).
inline std::filesystem::path product_plugins() {
  return HAMI_PRODUCT_PLUGIN_DIR;
}
inline std::filesystem::path test_plugins() {
  return HAMI_TEST_PLUGIN_DIR;
}

// The section `name` of config/device-config.yaml as JSON ("{}" if absent).
inline std::string device_config(const std::string& name) {
  const auto file = config::DeviceConfigFile::load(
      std::string(HAMI_SOURCE_DIR) + "/config/device-config.yaml", "plugins.deviceConfigFile");
  return file.section_json(name).value_or("{}");
}

class PluginSet {
 public:
  PluginSet() : services_([](int32_t, std::string_view, std::string_view) {}, [] { return 0; }) {}

  PluginSet& device(const std::string& name, const std::string& config,
                    const std::filesystem::path& dir = product_plugins()) {
    devices_.push_back(host::load_device_plugin(
        {dir, false}, {name, name + ".so", HAMI_KIND_DEVICE, config}, services_));
    return *this;
  }

  // nvidia.so and amd.so with config/device-config.yaml.
  PluginSet& vendors() {
    return device("nvidia", device_config("nvidia")).device("amd", device_config("amd"));
  }

  PluginSet& admission(const std::string& name, const std::string& config) {
    policy_.emplace(host::load_admission_plugin(
        {product_plugins(), false}, {name, name + ".so", HAMI_KIND_ADMISSION, config}, services_));
    return *this;
  }

  const std::vector<host::DevicePluginHandle>& devices() const { return devices_; }
  const host::AdmissionPluginHandle& policy() const { return *policy_; }

 private:
  host::HostServices services_;
  std::vector<host::DevicePluginHandle> devices_;
  std::optional<host::AdmissionPluginHandle> policy_;
};

}  // namespace hami::admission::testing
