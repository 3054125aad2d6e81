// The plugin list of a host under test: one entry, and the production set
// (nvidia.so and amd.so, vgpu.so, hami-policies.so, each with "{}").
// Header-only; the test target must see host/ (hami_app does).
#pragma once

#include <string>

#include "config/host_config.hpp"

namespace hami::testing {

inline config::PluginEntry plugin_entry(std::string name, std::string library,
                                        std::string config_json = "{}") {
  config::PluginEntry e;
  e.name = std::move(name);
  e.library = std::move(library);
  e.config_json = std::move(config_json);
  return e;
}

inline void use_production_plugins(config::HostConfig& c) {
  c.plugins.devices = {plugin_entry("nvidia", "nvidia.so"), plugin_entry("amd", "amd.so")};
  c.plugins.admission = plugin_entry("vgpu", "vgpu.so");
  c.plugins.scheduling = {plugin_entry("hami-policies", "hami-policies.so")};
}

}  // namespace hami::testing
