#include "extender/extender_stack.hpp"

#include "cluster/file_cluster.hpp"
#include "scheduling/admission_view.hpp"

namespace hami::extender {

ExtenderStack::~ExtenderStack() {
  // The loop calls into the scheduler, the scheduler into the cluster.
  health.reset();
  admission_view.reset();
  scheduler.reset();
  cluster.reset();
}

std::unique_ptr<ExtenderStack> make_extender_stack(const config::HostConfig& config,
                                                   const host::PluginRegistry& registry,
                                                   const log::Logger& logger,
                                                   std::chrono::milliseconds health_period) {
  auto stack = std::make_unique<ExtenderStack>();
  const bool kubernetes = config.cluster.source == config::ClusterSource::kubernetes;
  stack->cluster =
      cluster::open_cluster_state(kubernetes ? "kubernetes" : "file", config.cluster.file);
  scheduling::SchedulerOptions options;
  options.scheduler_name = config.scheduler.name;
  options.node_policy = config.scheduler.node_policy;
  options.gpu_policy = config.scheduler.gpu_policy;
  options.allocate_at = config.scheduler.allocate_at == config::AllocateAt::filter
                            ? scheduling::AllocateAt::Filter
                            : scheduling::AllocateAt::Bind;
  options.node_lock.expiry_seconds = config.scheduler.node_lock.timeout_seconds;
  options.pod_group_lock_retry =
      std::chrono::seconds(config.scheduler.node_lock.pod_group_retry_timeout_seconds);
  options.logger = &logger;
  stack->scheduler = std::make_unique<scheduling::Scheduler>(
      *stack->cluster, registry.devices(), registry.scheduling(), std::move(options));
  stack->admission_view = std::make_unique<scheduling::LedgerAdmissionView>(
      stack->scheduler->ledger(), *stack->cluster, registry.devices());
  stack->health =
      std::make_unique<scheduling::HealthLoop>(*stack->scheduler, *stack->cluster, health_period);
  logger.info("extender ready",
              {{"cluster", kubernetes ? "kubernetes" : "file"},
               {"snapshot", config.cluster.file.string()},
               {"nodes", std::to_string(stack->cluster->nodes().size())},
               {"pods", std::to_string(stack->cluster->pods().size())},
               {"allocateAt",
                config.scheduler.allocate_at == config::AllocateAt::filter ? "filter" : "bind"}});
  return stack;
}

}  // namespace hami::extender
