// Turning the plugins section of the host config into loader input, and
// describing loaded plugins for the command line.
#pragma once

#include <string>
#include <vector>

#include "config/host_config.hpp"
#include "plugins/plugin_registry.hpp"
#include "plugins/plugin_types.hpp"

namespace hami::app {

// Devices first, then the admission plugin, then scheduling plugins, each
// in file order: the order the registry loads them in.
std::vector<host::PluginSpec> plugin_specs(const config::PluginsConfig& plugins);

host::LoaderOptions loader_options(const config::PluginsConfig& plugins);

// One aligned row per loaded plugin under a header:
//   NAME  KIND  PLUGIN  VERSION  ABI  FILE
std::string plugin_table(const host::PluginRegistry& registry);

// The node (node = true) or device policy in force when a pod names none:
// the configured one, or else the scheduling plugins' default ("" when no
// plugin declares one).
std::string effective_policy(const config::SchedulerConfig& scheduler,
                             const host::PluginRegistry& registry, bool node);

// Checks that the default policies in `scheduler` are declared by a loaded
// scheduling plugin; returns the problem, or "" when fine or when no
// scheduling plugin is configured (nothing to choose from yet).
std::string check_policies(const config::SchedulerConfig& scheduler,
                           const host::PluginRegistry& registry);

}  // namespace hami::app
