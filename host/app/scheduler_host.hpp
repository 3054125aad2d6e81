// SchedulerHost: everything a running hami-scheduler owns, wired together —
// plugin registry, the extender stack (cluster state, scheduler, node
// health loop), metrics, readiness, routes, TLS, the two HTTPS listeners
// and the optional plain-HTTP metrics listener. Construction loads every
// plugin, builds the TLS contexts and binds the listening sockets, so any
// configuration problem surfaces before the first request; serving begins
// with start().
//
// The listeners (config listen/tls and extender):
//   webhook  — POST /mutate-pod, /webhook; GET /healthz, /readyz, /status,
//              /metrics: what the cluster reaches through the Service;
//   extender — POST /filter, /schedule, /prioritize, /bind; GET
//              /allocations; GET /healthz, /readyz, /status: for the
//              kube-scheduler next to the host.
// A route asked on the other listener is 404. With extender.shared one
// socket, the webhook listener's, serves both sets: to every connection on
// a loopback address, only to connections made to a loopback address on a
// wildcard one (0.0.0.0, HAMi's layout; others get the webhook set).
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
#include "kube/device_config_drift.hpp"
#include "log/logger.hpp"
#include "observability/host_metrics.hpp"
#include "observability/metrics_listener.hpp"
#include "plugins/host_services.hpp"
#include "plugins/plugin_registry.hpp"
#include "server/https_server.hpp"
#include "server/readiness.hpp"
#include "server/router.hpp"
#include "webhook_tls/self_managed_tls.hpp"

namespace hami::app {

// Readiness condition names registered by the host.
inline constexpr const char* kPluginsCondition = "plugins";
inline constexpr const char* kClusterCondition = "cluster";

class SchedulerHost {
 public:
  // Throws config::ConfigError, host::PluginLoadError, server::TlsError,
  // cluster::SnapshotError, webhook_tls::SelfManagedTlsError (tls.selfManaged
  // found no certificate to serve) or std::runtime_error (cannot bind) with
  // a message naming the cause.
  SchedulerHost(const config::HostConfig& config, const log::Logger& logger);
  ~SchedulerHost();

  SchedulerHost(const SchedulerHost&) = delete;
  SchedulerHost& operator=(const SchedulerHost&) = delete;

  void start();
  // HttpsServer::shutdown of both listeners at once, within one `grace`.
  bool shutdown(std::chrono::milliseconds grace);

  // The webhook listener.
  const server::HttpsServer& server() const { return *server_; }
  // The extender listener: its own server, or server() when shared.
  const server::HttpsServer& extender_server() const {
    return extender_server_ ? *extender_server_ : *server_;
  }
  bool listeners_shared() const { return !extender_server_; }
  // Null unless config metrics.listen is set.
  const observability::MetricsListener* metrics_listener() const { return metrics_listener_.get(); }
  const host::PluginRegistry& registry() const { return registry_; }
  server::Readiness& readiness() { return readiness_; }
  // The cluster state, leader detection and scheduler behind the routes.
  extender::ExtenderStack& extender() { return *extender_; }

 private:
  // plugins.compareDeviceConfigMap: the check started with the listeners.
  void watch_device_config(const config::HostConfig& config);

  const log::Logger& logger_;
  host::HostServices services_;
  host::PluginRegistry registry_;
  server::Readiness readiness_;
  std::unique_ptr<extender::ExtenderStack> extender_;
  std::unique_ptr<observability::HostMetrics> metrics_;
  std::unique_ptr<admission::AdmissionService> admission_;
  std::unique_ptr<observability::MetricsListener> metrics_listener_;
  // tls.selfManaged: the files the webhook listener serves; null otherwise.
  std::unique_ptr<webhook_tls::SelfManagedTls> self_managed_tls_;
  // plugins.compareDeviceConfigMap with the kubernetes backend; null otherwise.
  std::unique_ptr<kube::DeviceConfigDriftCheck> device_config_drift_;
  std::unique_ptr<server::HttpsServer> server_;
  std::unique_ptr<server::HttpsServer> extender_server_;  // null when shared
};

// Loads the configured plugins with the host's logger attached.
host::PluginRegistry load_plugins(const config::HostConfig& config, host::HostServices& services);

// Routes plugin log lines into `logger`, attributed to the plugin.
void attach_logger(host::HostServices& services, const log::Logger& logger);

}  // namespace hami::app
