#include "observability/plugin_metrics.hpp"

#include "hami/plugin.h"
#include "plugins/plugin_registry.hpp"
#include "plugins/plugin_types.hpp"

namespace hami::observability {

PluginMetrics::PluginMetrics(MetricsRegistry& registry)
    : loaded_(registry.gauge("hami_scheduler_plugin_loaded",
                             "Whether a configured plugin is loaded (1) or failed to load (0), "
                             "with its version and the plugin ABI version it was built against.",
                             {"name", "plugin", "kind", "version", "abi_version"})) {
  registry
      .gauge("hami_scheduler_host_abi_info", "The plugin ABI version this host implements.",
             {"abi_version"})
      .labels({host::abi_version_text(HAMI_ABI_MAJOR, HAMI_ABI_MINOR)})
      .set(1);
}

void PluginMetrics::record(const PluginStatus& status) {
  loaded_.labels({status.name, status.plugin, status.kind, status.version, status.abi_version})
      .set(status.loaded ? 1 : 0);
}

void PluginMetrics::record_loaded(const host::PluginRegistry& plugins) {
  for (const host::PluginSummary& s : plugins.summary())
    record({s.name, s.plugin_name, s.kind, s.version, s.abi_version, true});
}

}  // namespace hami::observability
