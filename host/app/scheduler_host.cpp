#include "app/scheduler_host.hpp"

#include <future>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "admission/routes.hpp"
#include "app/plugin_specs.hpp"
#include "config/config_error.hpp"
#include "config/listen_address.hpp"
#include "extender/extender_service.hpp"
#include "extender/refit_route.hpp"
#include "hami/plugin.h"
#include "observability/leader_metrics.hpp"
#include "observability/metrics_routes.hpp"
#include "server/health_routes.hpp"

namespace hami::app {
namespace {

log::Level to_level(int32_t hami_level) {
  switch (hami_level) {
    case HAMI_LOG_DEBUG:
      return log::Level::debug;
    case HAMI_LOG_WARN:
      return log::Level::warn;
    case HAMI_LOG_ERROR:
      return log::Level::error;
    default:
      return log::Level::info;
  }
}

// The server of one listener; a socket that cannot be bound names the
// listener in the error.
std::unique_ptr<server::HttpsServer> listen_on(
    std::string_view listener, std::shared_ptr<const server::Router> routes, server::ServerTls tls,
    const config::ListenAddress& address, const config::ServerConfig& settings,
    const log::Logger& logger, std::shared_ptr<const server::Router> loopback = {}) {
  try {
    return std::make_unique<server::HttpsServer>(std::move(routes), std::move(tls), address,
                                                 settings, logger, std::move(loopback));
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string(listener) + ": " + e.what());
  }
}

}  // namespace

void attach_logger(host::HostServices& services, const log::Logger& logger) {
  services.set_log_sink(
      [&logger](int32_t level, std::string_view source, std::string_view message) {
        logger.write(to_level(level), message, {{"plugin", std::string(source)}});
      });
}

host::PluginRegistry load_plugins(const config::HostConfig& config, host::HostServices& services) {
  return host::PluginRegistry::load(loader_options(config.plugins), plugin_specs(config.plugins),
                                    services);
}

SchedulerHost::SchedulerHost(const config::HostConfig& config, const log::Logger& logger)
    : logger_(logger) {
  attach_logger(services_, logger_);
  readiness_.add(kPluginsCondition, "loading");
  readiness_.add(kClusterCondition, "not loaded");
  registry_ = load_plugins(config, services_);
  if (const std::string problem = check_policies(config.scheduler, registry_); !problem.empty()) {
    throw config::ConfigError(config.source.string() + ": " + problem);
  }
  readiness_.set(kPluginsCondition, true, std::to_string(registry_.size()) + " loaded");

  // The file backend is complete once loaded; the Kubernetes backend flips
  // the condition with its sync state (an unreachable API server keeps it
  // unmet, naming why, while the host serves).
  observability::HostMetricsOptions metrics_options;
  metrics_options.legacy_metrics = config.metrics.legacy;
  metrics_ = std::make_unique<observability::HostMetrics>(metrics_options);
  observability::SchedulerMetrics& events = metrics_->scheduler();

  extender::ExtenderStackOptions stack_options;
  stack_options.node_lock_observer = [&events](cluster::NodeLockOutcome outcome,
                                               std::chrono::nanoseconds waited) {
    events.record_node_lock(
        outcome == cluster::NodeLockOutcome::acquired     ? observability::LockResult::acquired
        : outcome == cluster::NodeLockOutcome::contention ? observability::LockResult::contention
                                                          : observability::LockResult::error,
        waited);
  };
  stack_options.watch_restarted = [&events](std::string_view resource, bool relist) {
    if (relist)
      events.record_relist(resource);
    else
      events.record_watch_reconnect(resource);
  };
  extender_ = extender::make_extender_stack(config, registry_, logger_, std::move(stack_options));
  extender_->on_cluster_sync([this](bool synced, const std::string& detail) {
    readiness_.set(kClusterCondition, synced, synced ? "synced" : "not synced: " + detail);
  });

  metrics_->plugins().record_loaded(registry_);
  metrics_->add_cluster(*extender_->scheduler, *extender_->cluster, registry_.devices());
  // Read at scrape time; scrapes end with the servers, before the stack goes.
  observability::add_leader_metrics(metrics_->registry(),
                                    {.is_leader = [this] { return extender_->leader->is_leader(); },
                                     .synced = [this] { return extender_->view_synced(); }});

  const auto make_router = [this] {
    auto router = std::make_shared<server::Router>(&logger_);
    router->set_observer([&requests = metrics_->requests()](std::string_view route,
                                                            std::string_view method, int status,
                                                            std::chrono::nanoseconds elapsed) {
      requests.observe(route, method, status, elapsed);
    });
    return router;
  };
  if (const auto* policy = registry_.admission()) {
    admission::AdmissionSettings settings;
    settings.scheduler_name = config.scheduler.name;
    settings.on_outcome = [&events](admission::AdmissionOutcome outcome) {
      switch (outcome) {
        case admission::AdmissionOutcome::allowed:
          events.record_admission(observability::AdmissionResult::allowed);
          break;
        case admission::AdmissionOutcome::skipped:
          events.record_admission(observability::AdmissionResult::skipped);
          break;
        case admission::AdmissionOutcome::denied:
          events.record_admission(observability::AdmissionResult::denied);
          break;
        case admission::AdmissionOutcome::error:
          events.record_admission(observability::AdmissionResult::error);
          break;
      }
    };
    admission_ = std::make_unique<admission::AdmissionService>(
        registry_.devices(), *policy, extender_->admission_view.get(), settings, &logger_);
  }

  // A shared socket on a wildcard address (HAMi's 0.0.0.0:443, with
  // kube-scheduler calling 127.0.0.1:443) serves the extender verbs only on
  // connections made to a loopback address: those get extender_routes,
  // which then carry the webhook side too.
  const bool loopback_split = config.extender.shared && !config::is_loopback(config.listen);
  const auto webhook_routes = make_router();
  const auto extender_routes =
      config.extender.shared && !loopback_split ? webhook_routes : make_router();
  const auto add_webhook_side = [&](server::Router& router) {
    server::register_health_routes(router, readiness_);
    observability::register_metrics_routes(router, metrics_->registry(), &logger_);
    if (admission_) {
      admission::register_admission_routes(router, *admission_, config.server.webhook_body_limit);
    }
    // The NUMA refit: node agents call it, so it is served where they reach
    // the scheduler (docs/refit.md).
    extender::register_refit_route(router, *extender_->scheduler, config.server.webhook_body_limit,
                                   &logger_);
  };
  add_webhook_side(*webhook_routes);
  if (loopback_split)
    add_webhook_side(*extender_routes);
  else if (extender_routes != webhook_routes)
    server::register_health_routes(*extender_routes, readiness_);
  extender::ExtenderObserver observer;
  observer.filtered = [&events](const scheduling::FilterOutcome& outcome, size_t candidates) {
    events.record_filter(outcome, candidates);
  };
  observer.bound = [&events](std::string_view error) { events.record_bind(error); };
  observer.full_nodes = [&events](size_t cached, size_t parsed, size_t entries, size_t bytes) {
    events.record_full_nodes(cached, parsed, entries, bytes);
  };
  extender::register_extender_routes(*extender_routes, *extender_->scheduler,
                                     config.server.extender_body_limit, &logger_,
                                     std::move(observer), config.server.extender_node_cache_bytes);
  config::TlsConfig webhook_tls_config = config.tls;
  if (config.tls.self_managed) {
    // The certificate must be in place before the listener is built.
    auto api = extender_->api
                   ? extender_->api
                   : std::make_shared<kube::ApiClient>(
                         extender::kubernetes_api_config(config.cluster.kubernetes), &logger_);
    self_managed_tls_ = std::make_unique<webhook_tls::SelfManagedTls>(*config.tls.self_managed,
                                                                      std::move(api), logger_);
    webhook_tls_config = self_managed_tls_->serving_config(config.tls);
  }
  watch_device_config(config);
  server::ServerTls webhook_tls = server::make_server_tls(webhook_tls_config, &logger_);
  std::optional<server::ServerTls> extender_tls;
  if (!config.extender.shared) {
    // Without extender.tls both listeners serve the same certificate: one
    // context (and one reloader watching its files) for the two.
    extender_tls = config.extender.tls
                       ? server::make_server_tls(*config.extender.tls, &logger_,
                                                 server::kCertificateCheckInterval, "extender.tls")
                       : webhook_tls;
  }
  server_ =
      listen_on("webhook listener (listen)", webhook_routes, std::move(webhook_tls), config.listen,
                config.server, logger_, loopback_split ? extender_routes : nullptr);
  if (extender_tls) {
    extender_server_ =
        listen_on("extender listener (extender.listen)", extender_routes, std::move(*extender_tls),
                  config.extender.listen, config.server, logger_);
  }
  if (config.metrics.listen) {
    metrics_listener_ = std::make_unique<observability::MetricsListener>(
        metrics_->registry(), *config.metrics.listen, observability::MetricsListenerOptions{},
        &logger_);
  }
}

void SchedulerHost::watch_device_config(const config::HostConfig& config) {
  const std::string& ref = config.plugins.compare_device_config_map;
  if (ref.empty())
    return;
  if (!extender_->api) {
    logger_.warn(
        "device config not compared: plugins.compareDeviceConfigMap needs cluster.source "
        "kubernetes",
        {{"configMap", ref}});
    return;
  }
  std::vector<kube::DeviceConfigSection> sections;
  for (const auto& e : config.plugins.devices)
    sections.push_back({e.name, e.config_json});
  const auto slash = ref.find('/');
  device_config_drift_ = std::make_unique<kube::DeviceConfigDriftCheck>(
      extender_->api, ref.substr(0, slash), ref.substr(slash + 1), std::move(sections), logger_);
}

SchedulerHost::~SchedulerHost() {
  device_config_drift_.reset();
  // Requests first: nothing may reach the stack or the metrics any more.
  server_.reset();
  extender_server_.reset();
  metrics_listener_.reset();
  self_managed_tls_.reset();
  admission_.reset();
  // The stack's watch threads and node locks report into the metrics, so
  // the stack goes before them (the metrics only read the stack while
  // scraping, which has stopped).
  extender_.reset();
}

void SchedulerHost::start() {
  if (self_managed_tls_)
    self_managed_tls_->start();
  if (device_config_drift_)
    device_config_drift_->start();
  server_->start();
  if (extender_server_)
    extender_server_->start();
  if (metrics_listener_)
    metrics_listener_->start();
}

bool SchedulerHost::shutdown(std::chrono::milliseconds grace) {
  // Both stop accepting at once and share the grace period.
  std::future<bool> extender_finished;
  if (extender_server_) {
    extender_finished =
        std::async(std::launch::async, [this, grace] { return extender_server_->shutdown(grace); });
  }
  bool finished = server_->shutdown(grace);
  if (extender_finished.valid())
    finished = extender_finished.get() && finished;
  if (metrics_listener_)
    metrics_listener_->stop();
  if (device_config_drift_)
    device_config_drift_->stop();
  return finished;
}

}  // namespace hami::app
