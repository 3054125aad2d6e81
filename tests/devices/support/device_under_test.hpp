// The plugin a device test drives: nvidia.so or amd.so loaded from the
// build's plugin folder through the host loader (hami_plugins) with a config
// document, and called through its hami::host::DevicePluginHandle — the same
// path the scheduler uses.
#pragma once

#include <string>

#include "plugins/device_plugin_handle.hpp"
#include "plugins/host_services.hpp"
#include "plugins/plugin_errors.hpp"
#include "plugins/plugin_registry.hpp"

namespace hami::testing {

using host::AllocDevice;
using host::AnnotationWrite;
using host::ContainerMutation;
using host::DeviceDescription;
using host::DeviceRecord;
using host::FitResult;
using host::HealthResult;
using host::NodeInventory;
using host::PodAllocation;
using host::RequestResult;
using CallError = host::PluginCallError;

class DeviceUnderTest {
 public:
  // `plugin`: "nvidia" or "amd". Throws host::PluginLoadError when loading
  // or create fails (a config the schema rejects: ConfigRejected).
  explicit DeviceUnderTest(const std::string& plugin, const std::string& config_json = "{}");

  const host::DevicePluginHandle& plugin() const { return *handle_; }

  // The directory the build writes plugins to.
  static std::string plugin_dir();

 private:
  host::HostServices services_;  // outlives the registry
  host::PluginRegistry registry_;
  const host::DevicePluginHandle* handle_ = nullptr;
};

}  // namespace hami::testing
