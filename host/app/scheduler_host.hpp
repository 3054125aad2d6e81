// SchedulerHost: everything a running hami-scheduler owns, wired together —
// plugin registry, the extender stack (cluster state, scheduler, node
// health loop), metrics, readiness, routes (health, admission webhook,
// extender, /metrics), TLS, the HTTPS server and the optional plain-HTTP
// metrics listener. Construction loads every plugin, builds the TLS context
// and binds the listening socket, so any configuration problem surfaces
// before the first request; serving begins with start().
//
// Members are declared in dependency order: the server (and its threads)
// goes first on destruction, the plugin libraries last.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "admission/admission_service.hpp"
#include "config/host_config.hpp"
#include "extender/extender_stack.hpp"
#include "log/logger.hpp"
#include "observability/host_metrics.hpp"
#include "observability/metrics_listener.hpp"
#include "plugins/host_services.hpp"
#include "plugins/plugin_registry.hpp"
#include "server/https_server.hpp"
#include "server/readiness.hpp"
#include "server/router.hpp"

namespace hami::app {

// Readiness condition names registered by the host.
inline constexpr const char* kPluginsCondition = "plugins";
inline constexpr const char* kClusterCondition = "cluster";

class SchedulerHost {
 public:
  // Throws config::ConfigError, host::PluginLoadError, server::TlsError,
  // cluster::SnapshotError or std::runtime_error (cannot bind) with a
  // message naming the cause.
  SchedulerHost(const config::HostConfig& config, const log::Logger& logger);
  ~SchedulerHost();

  SchedulerHost(const SchedulerHost&) = delete;
  SchedulerHost& operator=(const SchedulerHost&) = delete;

  void start();
  // See HttpsServer::shutdown.
  bool shutdown(std::chrono::milliseconds grace);

  const server::HttpsServer& server() const { return *server_; }
  // Null unless config metrics.listen is set.
  const observability::MetricsListener* metrics_listener() const { return metrics_listener_.get(); }
  const host::PluginRegistry& registry() const { return registry_; }
  server::Readiness& readiness() { return readiness_; }
  // The cluster state, leader detection and scheduler behind the routes.
  extender::ExtenderStack& extender() { return *extender_; }

 private:
  const log::Logger& logger_;
  host::HostServices services_;
  host::PluginRegistry registry_;
  server::Readiness readiness_;
  std::unique_ptr<extender::ExtenderStack> extender_;
  std::unique_ptr<observability::HostMetrics> metrics_;
  std::unique_ptr<admission::AdmissionService> admission_;
  std::unique_ptr<observability::MetricsListener> metrics_listener_;
  std::unique_ptr<server::HttpsServer> server_;
};

// Loads the configured plugins with the host's logger attached.
host::PluginRegistry load_plugins(const config::HostConfig& config, host::HostServices& services);

// Routes plugin log lines into `logger`, attributed to the plugin.
void attach_logger(host::HostServices& services, const log::Logger& logger);

}  // namespace hami::app
