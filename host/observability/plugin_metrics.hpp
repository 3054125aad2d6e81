// Plugin load status and ABI versions:
//   hami_scheduler_plugin_loaded{name, plugin, kind, version, abi_version}
//       1 for a loaded plugin, 0 for one that failed to load (name is the
//       configured name, plugin the plugin's own name, abi_version the ABI
//       it was built against, "major.minor")
//   hami_scheduler_host_abi_info{abi_version}  1, the ABI this host speaks
#pragma once

#include <string>
#include <string_view>

#include "observability/instruments.hpp"
#include "observability/metrics_registry.hpp"

namespace hami::host {
class PluginRegistry;
}

namespace hami::observability {

struct PluginStatus {
  std::string name;         // configured name
  std::string plugin;       // the plugin's own name ("" if it never loaded)
  std::string kind;         // "device", "admission", "scheduling"
  std::string version;      // plugin version ("" if it never loaded)
  std::string abi_version;  // "1.0" ("" if it never loaded)
  bool loaded = false;
};

class PluginMetrics {
 public:
  // Registers both families; the host ABI series is set at once.
  explicit PluginMetrics(MetricsRegistry& registry);

  void record(const PluginStatus& status);
  // Records every plugin of a loaded registry as loaded.
  void record_loaded(const host::PluginRegistry& plugins);

 private:
  GaugeFamily& loaded_;
};

}  // namespace hami::observability
