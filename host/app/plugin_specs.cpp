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

std::string effective_policy(const config::SchedulerConfig& scheduler,
                             const host::PluginRegistry& registry, bool node) {
  const std::string& configured = node ? scheduler.node_policy : scheduler.gpu_policy;
  if (!configured.empty())
    return configured;
  return std::string(host::default_policy(registry.scheduling(), node));
}

std::string check_policies(const config::SchedulerConfig& scheduler,
                           const host::PluginRegistry& registry) {
  if (registry.scheduling().empty())
    return {};
  for (const bool node : {true, false}) {
    const std::string_view key = node ? "scheduler.nodePolicy" : "scheduler.gpuPolicy";
    const std::string_view kind = node ? "node" : "device";
    const std::string policy = effective_policy(scheduler, registry, node);
    if (policy.empty()) {
      return std::string(key) + ": not set, and no scheduling plugin declares a " +
             std::string(kind) + " policy to default to";
    }
    if (registry.scheduling_for(policy, node) == nullptr) {
      return std::string(key) + ": no scheduling plugin declares the " + std::string(kind) +
             " policy \"" + policy + "\"";
    }
  }
  return {};
}

}  // namespace hami::app
