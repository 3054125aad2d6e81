// The lines --check-config prints about the effective configuration (the
// file or the built-in defaults, HAMi's flags and this host's options
// applied), one `key: value` line each.
#pragma once

#include <string>

#include "config/host_config.hpp"
#include "plugins/plugin_registry.hpp"

namespace hami::app {

// "listen: ...", "tls: ...", "extender.listen: ..." [, "extender.tls: ..."].
std::string listeners_summary(const config::HostConfig& config);

// "leader election: ..." without the key: none, follow or elect with the
// lease and identity.
std::string leader_summary(const config::LeaderElectionConfig& leader);

// "leader role labels: ..." without the key: the label the leader writes,
// on which pods, in `pod_namespace` ($POD_NAMESPACE; empty: none written),
// naming `own_pod`; or off when the label is empty.
std::string role_labels_summary(const config::LeaderElectionConfig& leader,
                                const std::string& pod_namespace, const std::string& own_pod);

// "kubernetes client: qps Q, burst B, request timeout Ts, events API".
std::string kubernetes_client_summary(const config::KubernetesConfig& kubernetes);

// The scheduler, node lock, device config, admission config, metrics and
// log lines. A policy the config leaves unset is the scheduling plugins'
// default in `registry`, marked "(plugin default)".
std::string settings_summary(const config::HostConfig& config,
                             const host::PluginRegistry& registry);

}  // namespace hami::app
