#include "extender/extender_stack.hpp"

#include <algorithm>
#include <cstdlib>
#include <mutex>

#include "cluster/file_cluster.hpp"
#include "kube/leader_always.hpp"
#include "kube/leader_elector.hpp"
#include "kube/leader_follower.hpp"
#include "scheduling/admission_view.hpp"

namespace hami::extender {

namespace {

const char* mode_name(config::LeaderMode mode) {
  switch (mode) {
    case config::LeaderMode::follow:
      return "follow";
    case config::LeaderMode::elect:
      return "elect";
    default:
      return "none";
  }
}

std::unique_ptr<kube::LeaderDetector> make_leader(const config::HostConfig& config,
                                                  const kube::ApiConfig* api_config,
                                                  const std::shared_ptr<kube::ApiClient>& api,
                                                  const std::string& identity,
                                                  const log::Logger& logger) {
  const auto& le = config.cluster.leader_election;
  if (config.cluster.source != config::ClusterSource::kubernetes ||
      le.mode == config::LeaderMode::none) {
    return std::make_unique<kube::AlwaysLeader>(identity);
  }
  if (le.mode == config::LeaderMode::follow) {
    kube::LeaseFollowerOptions o;
    o.namespace_ = le.lease_namespace;
    o.name = le.lease_name;
    o.identity = identity;
    o.logger = &logger;
    return std::make_unique<kube::LeaseFollower>(api, std::move(o));
  }
  kube::LeaseElectorOptions o;
  o.namespace_ = le.lease_namespace;
  o.name = le.lease_name;
  o.identity = identity;
  o.lease_duration = std::chrono::seconds(le.lease_duration_seconds);
  o.renew_deadline = std::chrono::seconds(le.renew_deadline_seconds);
  o.retry_period = std::chrono::seconds(le.retry_period_seconds);
  o.logger = &logger;
  // Its own client: a renewal must give up before the renew deadline rather
  // than wait out the ordinary request timeout, and it must not queue
  // behind the caches' requests in the rate limiter.
  kube::ApiConfig elector_config = *api_config;
  elector_config.request_timeout =
      std::min<std::chrono::milliseconds>(api_config->request_timeout, o.renew_deadline / 2);
  elector_config.max_retries = 1;
  elector_config.qps = 0;
  return std::make_unique<kube::LeaseElector>(
      std::make_shared<kube::ApiClient>(std::move(elector_config), &logger), std::move(o));
}

std::string env_or(const std::string& given, const char* name) {
  if (!given.empty())
    return given;
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

// The leader's role labeler, or null (logged) when there is nothing to label.
std::unique_ptr<kube::RoleLabeler> make_roles(const config::HostConfig& config,
                                              const std::shared_ptr<kube::ApiClient>& api,
                                              const ExtenderStackOptions& options,
                                              const log::Logger& logger) {
  const auto& le = config.cluster.leader_election;
  if (!api || le.role_label.empty())
    return nullptr;
  kube::RoleLabelOptions o;
  o.namespace_ = env_or(options.pod_namespace, "POD_NAMESPACE");
  o.own_pod = options.pod_name.empty() ? kube::leader_identity("") : options.pod_name;
  o.selector = le.role_selector;
  o.key = le.role_label;
  o.logger = &logger;
  if (o.namespace_.empty()) {
    logger.info("scheduler role labels off",
                {{"label", o.key}, {"reason", "POD_NAMESPACE is not set"}});
    return nullptr;
  }
  return std::make_unique<kube::RoleLabeler>(api, std::move(o));
}

}  // namespace

ExtenderStack::~ExtenderStack() {
  // Leadership callbacks wake the loop; stop them first (an elector
  // releases its lease here). The loop calls into the scheduler, the
  // scheduler into the cluster.
  // The caches stop next, so no watch thread calls into the loop or the
  // scheduler while they go.
  if (leader)
    leader->stop();
  if (kube != nullptr)
    kube->stop();
  health.reset();
  admission_view.reset();
  scheduler.reset();
  leader.reset();
  cluster.reset();
  api.reset();
}

bool ExtenderStack::synced() const {
  return kube == nullptr || kube->synced();
}

std::string ExtenderStack::sync_status() const {
  if (kube == nullptr || kube->synced())
    return {};
  std::string status = kube->sync_status();
  return status.empty() ? "initial list in progress" : status;
}

std::string ExtenderStack::gate() const {
  if (!synced())
    return "cluster cache not synced: " + sync_status();
  if (leader) {
    if (std::string reason = leader->gate(); !reason.empty())
      return reason;
  }
  if (kube != nullptr) {
    if (std::string status = term.status(); !status.empty())
      return "not ready: " + status;
  }
  return {};
}

bool ExtenderStack::view_synced() const {
  if (!synced())
    return false;
  return kube == nullptr || !leader || !leader->is_leader() || term.synced();
}

void ExtenderStack::on_cluster_sync(
    std::function<void(bool synced, const std::string& detail)> listener) {
  if (kube == nullptr) {
    listener(true, "file snapshot loaded");
    return;
  }
  auto shared = std::make_shared<decltype(listener)>(std::move(listener));
  kube->on_sync_change(
      [shared](bool synced, const std::string& detail) { (*shared)(synced, detail); });
  (*shared)(synced(), synced() ? "synced" : sync_status());
}

kube::ApiConfig kubernetes_api_config(const config::KubernetesConfig& config) {
  kube::ApiConfig api = kube::resolve_api_config(config.kubeconfig, kube::process_environment());
  api.qps = config.qps;
  api.burst = config.burst;
  api.request_timeout = std::chrono::seconds(config.request_timeout_seconds);
  return api;
}

std::unique_ptr<ExtenderStack> make_extender_stack(const config::HostConfig& config,
                                                   const host::PluginRegistry& registry,
                                                   const log::Logger& logger,
                                                   ExtenderStackOptions stack_options) {
  auto stack = std::make_unique<ExtenderStack>();
  ExtenderStack* const self = stack.get();
  const bool kubernetes = config.cluster.source == config::ClusterSource::kubernetes;
  const std::string identity =
      kube::leader_identity(stack_options.identity.empty() ? config.cluster.leader_election.identity
                                                           : stack_options.identity);
  std::optional<kube::ApiConfig> api_config;
  if (kubernetes) {
    api_config = kubernetes_api_config(config.cluster.kubernetes);
    logger.info("kubernetes API server", {{"server", api_config->server},
                                          {"origin", api_config->origin},
                                          {"qps", std::to_string(api_config->qps)},
                                          {"burst", std::to_string(api_config->burst)}});
    stack->api = std::make_shared<kube::ApiClient>(*api_config, &logger);
    kube::KubeClusterOptions options;
    options.component = config.scheduler.name;
    options.instance = identity;
    options.core_v1_events = config.cluster.kubernetes.events == config::EventsApi::core_v1;
    // Events get a client, and so a rate limit (qps/burst), of their own.
    options.event_client = std::make_shared<kube::ApiClient>(*api_config, &logger);
    options.logger = &logger;
    options.watch_restarted = stack_options.watch_restarted;
    auto kube_state = std::make_unique<kube::KubernetesClusterState>(stack->api, options);
    stack->kube = kube_state.get();
    stack->cluster = std::move(kube_state);
  } else {
    stack->cluster = cluster::open_cluster_state("file", config.cluster.file);
  }
  stack->leader =
      make_leader(config, api_config ? &*api_config : nullptr, stack->api, identity, logger);
  // Leader from the start (election off): the first term, before any pass
  // can run. The detectors that elect or follow start last, so no flip can
  // race this.
  if (stack->leader->is_leader())
    stack->term.change(true);

  scheduling::SchedulerOptions options;
  options.scheduler_name = config.scheduler.name;
  options.node_policy = config.scheduler.node_policy;
  options.gpu_policy = config.scheduler.gpu_policy;
  options.allocate_at = config.scheduler.allocate_at == config::AllocateAt::filter
                            ? scheduling::AllocateAt::Filter
                            : scheduling::AllocateAt::Bind;
  options.node_lock.expiry_seconds = config.scheduler.node_lock.timeout_seconds;
  options.node_lock.observer = stack_options.node_lock_observer;
  options.pod_group_lock_retry =
      std::chrono::seconds(config.scheduler.node_lock.pod_group_retry_timeout_seconds);
  options.logger = &logger;
  options.gate = [self] { return self->gate(); };
  // With the API server the first pass waits for the sync and leadership
  // (the loop runs it); a snapshot is complete and ours at once.
  options.initial_health_check = !kubernetes;
  stack->scheduler = std::make_unique<scheduling::Scheduler>(
      *stack->cluster, registry.devices(), registry.scheduling(), std::move(options));
  stack->admission_view = std::make_unique<scheduling::LedgerAdmissionView>(
      stack->scheduler->ledger(), *stack->cluster, registry.devices());
  stack->roles = make_roles(config, stack->api, stack_options, logger);
  // HAMi's pass (reference §3.4): the role labels, then the nodes.
  stack->health = std::make_unique<scheduling::HealthLoop>(
      *stack->scheduler, *stack->cluster, stack_options.health_period,
      [self] { return self->synced() && self->leader->is_leader(); },
      [self, &logger, hook = stack_options.pass_done_hook] {
        // The term is captured first: a pass that began before a failover
        // must not mark the term after it synced.
        const uint64_t term = self->term.begin_pass();
        if (self->roles) {
          (void)self->roles->refresh(
              [self, term] { return self->term.current() == term && self->leader->is_leader(); });
        }
        self->scheduler->check_node_health();
        if (hook)
          hook();
        if (!self->term.complete_pass(term)) {
          logger.info("registration pass of an earlier leadership term not counted",
                      {{"pass_term", std::to_string(term)},
                       {"current_term", std::to_string(self->term.current())}});
        }
      });

  const std::string mode = kubernetes ? mode_name(config.cluster.leader_election.mode) : "none";
  stack->leader->on_change([self, &logger, mode](bool leader, const std::string& detail) {
    // A new term before the loop is woken: its pass belongs to this term.
    self->term.change(leader);
    logger.info(
        leader ? "leadership gained" : "leadership lost",
        {{"mode", mode}, {"detail", detail}, {"term", std::to_string(self->term.current())}});
    if (leader && self->health)
      self->health->wake();
  });
  if (stack->kube != nullptr) {
    stack->kube->on_sync_change([self, &logger](bool synced, const std::string& detail) {
      if (synced) {
        logger.info("cluster cache synced",
                    {{"nodes", std::to_string(self->cluster->nodes().size())},
                     {"pods", std::to_string(self->cluster->pods().size())}});
        if (self->health)
          self->health->wake();
      } else {
        logger.warn("cluster cache not synced", {{"detail", detail}});
      }
    });
    stack->kube->start();
  }
  stack->leader->start();

  logger.info("extender ready",
              {{"cluster", kubernetes ? "kubernetes" : "file"},
               {"snapshot", config.cluster.file.string()},
               {"leaderElection", mode},
               {"identity", identity},
               {"nodes", std::to_string(stack->cluster->nodes().size())},
               {"pods", std::to_string(stack->cluster->pods().size())},
               {"allocateAt",
                config.scheduler.allocate_at == config::AllocateAt::filter ? "filter" : "bind"}});
  return stack;
}

}  // namespace hami::extender
