// ExtenderStack: what the application constructs to serve the extender —
// the cluster state (config `cluster`), leader detection, the Scheduler over
// the loaded plugins (config `scheduler`), the registration (node health)
// loop, and the admission webhook's cluster view backed by the same ledger.
//
// cluster.source file: the snapshot, always synced, always the leader.
// cluster.source kubernetes: the API client (kube::resolve_api_config with
// cluster.kubernetes), the KubernetesClusterState started at once (an
// unreachable API server is retried with backoff, never fatal), the leader
// detector of cluster.leaderElection.mode. Filter and bind answer
//   "cluster cache not synced: <sync status>"   until the first full sync,
//   "not the leader: <why>"                     while another replica leads,
//   "not ready: registration pass of leadership term N not completed yet"
//                                               after this replica became
//                                               the leader, until a
//                                               registration pass that
//                                               began in that term is done
//                                               (kube::LeaderTerm).
// The registration loop runs only while leader; gaining leadership and the
// first sync wake it. Each of its passes first refreshes the scheduler role
// labels (kube::RoleLabeler, cluster.leaderElection.roleLabel) when there
// is a pod namespace ($POD_NAMESPACE).
//
// Use from the app:
//   auto stack = extender::make_extender_stack(config, registry, logger);
//   stack->on_cluster_sync([](bool synced, const std::string& detail) {...});
//   extender::register_extender_routes(router, *stack->scheduler,
//                                      config.server.extender_body_limit, &logger);
//   // admission: pass *stack->admission_view as the AdmissionClusterView.
// Destroy the stack after the server has stopped (handlers hold references)
// and before the plugin registry (the scheduler holds plugin handles).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "admission/cluster_view.hpp"
#include "cluster/cluster_state.hpp"
#include "config/host_config.hpp"
#include "kube/api_client.hpp"
#include "kube/kube_cluster.hpp"
#include "kube/leader_detector.hpp"
#include "kube/leader_role_labels.hpp"
#include "kube/leader_term.hpp"
#include "log/logger.hpp"
#include "plugins/plugin_registry.hpp"
#include "scheduling/health_loop.hpp"
#include "scheduling/scheduler.hpp"

namespace hami::extender {

inline constexpr std::chrono::seconds kHealthPeriod{15};

struct ExtenderStack {
  // Leadership terms (kubernetes): first, so it outlives every thread.
  kube::LeaderTerm term;
  std::shared_ptr<kube::ApiClient> api;  // kubernetes only
  std::unique_ptr<cluster::ClusterState> cluster;
  kube::KubernetesClusterState* kube = nullptr;  // `cluster` when kubernetes, else null
  std::unique_ptr<kube::LeaderDetector> leader;
  // The leader's scheduler role labels; null unless kubernetes with a
  // roleLabel and a pod namespace.
  std::unique_ptr<kube::RoleLabeler> roles;
  std::unique_ptr<scheduling::Scheduler> scheduler;
  std::unique_ptr<admission::AdmissionClusterView> admission_view;
  std::unique_ptr<scheduling::HealthLoop> health;

  ExtenderStack() = default;
  // The scheduler's gate and the listeners point at the stack: it stays put.
  ExtenderStack(const ExtenderStack&) = delete;
  ExtenderStack& operator=(const ExtenderStack&) = delete;
  // Stops leader detection (an elector releases its lease), the loop, the
  // scheduler, then the cluster caches.
  ~ExtenderStack();

  // Whether the cluster view is complete (the file backend always is).
  bool synced() const;
  // "" when synced, else why not (the cluster's sync_status).
  std::string sync_status() const;
  // "" when filter/bind may run, else the reason they answer.
  std::string gate() const;
  // Whether this replica's view may be scheduled on: synced, and while
  // leading, a registration pass of the current term done (the
  // hami_scheduler_cache_synced gauge).
  bool view_synced() const;
  // `listener(synced, detail)` now and on every change of the cluster sync
  // state (from a watch thread).
  void on_cluster_sync(std::function<void(bool synced, const std::string& detail)> listener);
};

struct ExtenderStackOptions {
  std::chrono::milliseconds health_period = kHealthPeriod;
  // Identity for leader detection; empty: leaderElection.identity, else
  // $POD_NAME, else the host name.
  std::string identity;
  // The scheduler pods' namespace and this process's pod for the role
  // labels; empty: $POD_NAMESPACE, and $POD_NAME else the host name.
  std::string pod_namespace;
  std::string pod_name;
  // Metrics hooks, may be empty: every node lock attempt (cluster/node_lock.hpp)
  // and every re-watch / relist of the Kubernetes caches (kube_cluster.hpp).
  std::function<void(cluster::NodeLockOutcome, std::chrono::nanoseconds)> node_lock_observer;
  std::function<void(std::string_view resource, bool relist)> watch_restarted;
  // Tests: runs at the end of every registration pass, before the pass
  // offers its term (a late pass of an earlier term is made by blocking it).
  std::function<void()> pass_done_hook;
};

// Throws cluster::SnapshotError (a snapshot that cannot be loaded, naming
// the file and object) or kube::ApiConfigError (no usable API server
// configuration: kubeconfig or in-cluster files, naming what is missing).
std::unique_ptr<ExtenderStack> make_extender_stack(const config::HostConfig& config,
                                                   const host::PluginRegistry& registry,
                                                   const log::Logger& logger,
                                                   ExtenderStackOptions options = {});

// The API client config of cluster.kubernetes: resolved (kubeconfig, or
// in-cluster, $KUBECONFIG, ~/.kube/config) with qps/burst/timeout applied.
// Throws kube::ApiConfigError.
kube::ApiConfig kubernetes_api_config(const config::KubernetesConfig& config);

}  // namespace hami::extender
