#include "app/plugin_specs.hpp"

#include <algorithm>

#include "hami/plugin.h"

namespace hami::app {

std::vector<host::PluginSpec> plugin_specs(const config::PluginsConfig& plugins) {
  std::vector<host::PluginSpec> specs;
  const auto add = [&specs](const config::PluginEntry& e, uint32_t kind) {
    specs.push_back(host::PluginSpec{e.name, e.library, kind, e.config_json});
  };
  for (const auto& e : plugins.devices)
    add(e, HAMI_KIND_DEVICE);
  if (plugins.admission)
    add(*plugins.admission, HAMI_KIND_ADMISSION);
  for (const auto& e : plugins.scheduling)
    add(e, HAMI_KIND_SCHEDULING);
  return specs;
}

host::LoaderOptions loader_options(const config::PluginsConfig& plugins) {
  return host::LoaderOptions{plugins.directory, plugins.allow_writable};
}

std::string plugin_table(const host::PluginRegistry& registry) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"NAME", "KIND", "PLUGIN", "VERSION", "ABI", "FILE"});
  for (const auto& s : registry.summary()) {
    rows.push_back({s.name, s.kind, s.plugin_name, s.version, s.abi_version, s.file.string()});
  }
  std::vector<size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i)
      widths[i] = std::max(widths[i], row[i].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size())
        line += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    out += line + "\n";
  }
  return out;
}

std::string check_policies(const config::SchedulerConfig& scheduler,
                           const host::PluginRegistry& registry) {
  if (registry.scheduling().empty())
    return {};
  if (registry.scheduling_for(scheduler.node_policy, true) == nullptr) {
    return "scheduler.nodePolicy: no scheduling plugin declares the node policy \"" +
           scheduler.node_policy + "\"";
  }
  if (registry.scheduling_for(scheduler.gpu_policy, false) == nullptr) {
    return "scheduler.gpuPolicy: no scheduling plugin declares the device policy \"" +
           scheduler.gpu_policy + "\"";
  }
  return {};
}

}  // namespace hami::app
