#include "app/config_summary.hpp"

#include <sstream>

#include "app/plugin_specs.hpp"
#include "config/listen_address.hpp"
#include "kube/leader_detector.hpp"
#include "webhook_tls/self_managed_tls.hpp"

namespace hami::app {
namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items)
    out += (out.empty() ? "" : ", ") + item;
  return out;
}

std::string self_managed_summary(const config::SelfManagedTlsConfig& sm) {
  const std::string ns = sm.secret_namespace.empty() ? "<pod namespace>" : sm.secret_namespace;
  const webhook_tls::ServingNames serving = webhook_tls::serving_names(sm, ns);
  std::vector<std::string> names = serving.dns;
  names.insert(names.end(), serving.ip.begin(), serving.ip.end());
  std::string out = "self-managed in Secret " + ns + "/" + sm.secret + " for " + joined(names) +
                    " (CA " + std::to_string(sm.ca_days) + " days, serving certificate " +
                    std::to_string(sm.leaf_days) + " days, renewed " +
                    std::to_string(sm.renew_before_days) + " days before expiry, checked every " +
                    std::to_string(sm.check_interval_seconds) + "s); caBundle: ";
  out += sm.webhook_configuration.empty()
             ? "not set (no webhookConfiguration)"
             : "MutatingWebhookConfiguration " + sm.webhook_configuration +
                   ", webhooks calling service " + ns + "/" + sm.service;
  out += "; files in " +
         (sm.directory.empty() ? std::string("a private temporary folder") : sm.directory.string());
  return out;
}

std::string tls_summary(const config::TlsConfig& tls) {
  std::string out = tls.self_managed  ? self_managed_summary(*tls.self_managed)
                    : tls.self_signed ? "self-signed certificate generated at start"
                                      : "certificate " + tls.cert_file.string() + ", key " +
                                            tls.key_file.string();
  if (!tls.client_ca_file.empty()) {
    out += "; client certificates required (CA " + tls.client_ca_file.string() + ")";
  }
  return out;
}

std::string extender_summary(const config::HostConfig& config) {
  const std::string listen = "extender.listen: " + config.extender.listen.text();
  if (config.extender.shared && config::is_loopback(config.listen)) {
    return listen +
           " (extender listener, sharing the webhook listener's loopback socket and tls)\n";
  }
  if (config.extender.shared) {
    return listen + " (extender listener: /filter, /schedule, /prioritize, /bind, /allocations " +
           "on the webhook listener's socket " + config.listen.text() +
           " for connections made to a loopback address only, with its tls)\n";
  }
  return listen +
         " (extender listener: /filter, /schedule, /prioritize, /bind, /allocations, health)\n" +
         "extender.tls: " +
         (config.extender.tls ? tls_summary(*config.extender.tls)
                              : "not set: the settings of tls") +
         "\n";
}

std::string seconds(int value) {
  return std::to_string(value) + "s";
}

}  // namespace

std::string listeners_summary(const config::HostConfig& config) {
  return "listen: " + config.listen.text() +
         " (webhook listener: /mutate-pod, /webhook, health, /metrics)\n" +
         "tls: " + tls_summary(config.tls) + "\n" + extender_summary(config);
}

std::string leader_summary(const config::LeaderElectionConfig& le) {
  switch (le.mode) {
    case config::LeaderMode::follow:
      return "follow lease " + le.lease_namespace + "/" + le.lease_name + " as " +
             kube::leader_identity(le.identity);
    case config::LeaderMode::elect:
      return "elect on lease " + le.lease_namespace + "/" + le.lease_name + " as " +
             kube::leader_identity(le.identity) + " (" + seconds(le.lease_duration_seconds) + "/" +
             seconds(le.renew_deadline_seconds) + "/" + seconds(le.retry_period_seconds) + ")";
    default:
      return "none (always the leader)";
  }
}

std::string role_labels_summary(const config::LeaderElectionConfig& le,
                                const std::string& pod_namespace, const std::string& own_pod) {
  if (le.role_label.empty())
    return "off (cluster.leaderElection.roleLabel empty)";
  const std::string pods = le.role_selector.empty() ? "every pod" : "pods " + le.role_selector;
  if (pod_namespace.empty())
    return "none written: POD_NAMESPACE is not set (" + le.role_label + " on " + pods + ")";
  return le.role_label + "=leader on " + own_pod + ", =follower on the other " + pods +
         " in namespace " + pod_namespace;
}

std::string kubernetes_client_summary(const config::KubernetesConfig& kubernetes) {
  std::ostringstream out;
  out << "kubernetes client: qps " << kubernetes.qps;
  if (kubernetes.qps <= 0)
    out << " (no limit)";
  out << ", burst " << kubernetes.burst << ", request timeout "
      << seconds(kubernetes.request_timeout_seconds) << ", events "
      << (kubernetes.events == config::EventsApi::core_v1 ? "v1" : "events.k8s.io/v1") << "\n";
  return out.str();
}

namespace {

// A policy in force: the name, marked when it is the plugins' default
// rather than the config's.
std::string policy_summary(const config::SchedulerConfig& scheduler,
                           const host::PluginRegistry& registry, bool node) {
  const std::string policy = effective_policy(scheduler, registry, node);
  if (policy.empty())
    return "none";
  const bool configured = !(node ? scheduler.node_policy : scheduler.gpu_policy).empty();
  return configured ? policy : policy + " (plugin default)";
}

}  // namespace

std::string settings_summary(const config::HostConfig& config,
                             const host::PluginRegistry& registry) {
  const config::SchedulerConfig& s = config.scheduler;
  std::string out = "scheduler: " + s.name + " (node policy " + policy_summary(s, registry, true) +
                    ", gpu policy " + policy_summary(s, registry, false) + ", allocate at " +
                    (s.allocate_at == config::AllocateAt::bind ? "bind" : "filter") + ")\n";
  out += "scheduler.nodeLock: timeout " + seconds(s.node_lock.timeout_seconds) +
         ", pod-group retry " + seconds(s.node_lock.pod_group_retry_timeout_seconds) + "\n";
  out += "plugins.deviceConfigFile: " +
         (config.plugins.device_config_file.empty()
              ? std::string("none (each device plugin's defaults)")
              : config.plugins.device_config_file.string()) +
         "\n";
  if (!config.plugins.compare_device_config_map.empty()) {
    out += "plugins.compareDeviceConfigMap: " + config.plugins.compare_device_config_map +
           " (compared with the device plugins' config; differences are logged)\n";
  }
  if (config.plugins.admission) {
    out += "plugins.admission: " + config.plugins.admission->name + " " +
           config.plugins.admission->config_json + "\n";
  }
  out += "metrics: /metrics on the webhook listener";
  if (config.metrics.listen)
    out += " and on " + config.metrics.listen->text() + " (plain HTTP)";
  out += std::string(", legacy names ") + (config.metrics.legacy ? "on" : "off") + "\n";
  out += "log: level " + std::string(log::level_name(config.log.level)) + ", format " +
         (config.log.format == log::Format::json ? "json" : "text") + "\n";
  return out;
}

}  // namespace hami::app
