// nvidia.so and hami-policies.so with their defaults, loaded as the host
// loads them, with host services whose clock is fixed (1,750,000,000 s):
// the plugins a scheduling benchmark runs the Scheduler with.
#pragma once

#include <string>

#include "plugins/host_services.hpp"
#include "plugins/plugin_registry.hpp"

namespace hami::bench {

struct NvidiaPlugins {
  explicit NvidiaPlugins(const std::string& plugin_dir);

  host::HostServices services;
  host::PluginRegistry registry;
};

}  // namespace hami::bench
