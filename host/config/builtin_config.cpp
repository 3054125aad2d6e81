#include "config/builtin_config.hpp"

namespace hami::config {
namespace {

PluginEntry entry(const char* name, const char* library) {
  PluginEntry e;
  e.name = name;
  e.library = library;
  e.config_json = "{}";
  e.config_source = PluginEntry::ConfigSource::none;
  return e;
}

std::string join(const std::vector<std::string>& names, std::string_view last_separator) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0)
      out += i + 1 == names.size() ? last_separator : std::string_view(", ");
    out += names[i];
  }
  return out;
}

}  // namespace

HostConfig builtin_config(const std::optional<std::string>& kubeconfig_env) {
  HostConfig config;
  config.tls.self_signed = true;
  config.plugins.directory = std::string(kDefaultPluginDirectory);
  config.plugins.devices = {entry("nvidia", "nvidia.so"), entry("amd", "amd.so")};
  config.plugins.admission = entry("vgpu", "vgpu.so");
  config.plugins.scheduling = {entry("hami-policies", "hami-policies.so")};
  config.cluster.source = ClusterSource::kubernetes;
  if (kubeconfig_env) {
    // As the API client reads a list: its first file.
    const std::string first = kubeconfig_env->substr(0, kubeconfig_env->find(':'));
    if (!first.empty())
      config.cluster.kubernetes.kubeconfig = std::filesystem::absolute(first).lexically_normal();
  }
  config.cluster.kubernetes.events = EventsApi::core_v1;
  config.scheduler.allocate_at = AllocateAt::filter;
  return config;
}

std::string builtin_device_plugin_names() {
  std::vector<std::string> names;
  for (const PluginEntry& e : builtin_config(std::nullopt).plugins.devices)
    names.push_back(e.name);
  return join(names, ", ");
}

std::string builtin_plugin_names() {
  const PluginsConfig plugins = builtin_config(std::nullopt).plugins;
  std::vector<std::string> names;
  for (const PluginEntry& e : plugins.devices)
    names.push_back(e.name);
  if (plugins.admission)
    names.push_back(plugins.admission->name);
  for (const PluginEntry& e : plugins.scheduling)
    names.push_back(e.name);
  return join(names, " and ");
}

}  // namespace hami::config
