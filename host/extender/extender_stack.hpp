// ExtenderStack: what the application constructs to serve the extender —
// the cluster state (config `cluster`), the Scheduler over the loaded
// plugins (config `scheduler`), the periodic node health loop, and the
// admission webhook's cluster view backed by the same ledger.
//
// Use from the app:
//   auto stack = extender::make_extender_stack(config, registry, logger);
//   extender::register_extender_routes(router, *stack->scheduler,
//                                      config.server.extender_body_limit, &logger);
//   // admission: pass *stack->admission_view as the AdmissionClusterView.
// Destroy the stack after the server has stopped (handlers hold references)
// and before the plugin registry (the scheduler holds plugin handles).
#pragma once

#include <chrono>
#include <memory>

#include "admission/cluster_view.hpp"
#include "cluster/cluster_state.hpp"
#include "config/host_config.hpp"
#include "log/logger.hpp"
#include "plugins/plugin_registry.hpp"
#include "scheduling/health_loop.hpp"
#include "scheduling/scheduler.hpp"

namespace hami::extender {

inline constexpr std::chrono::seconds kHealthPeriod{15};

struct ExtenderStack {
  std::unique_ptr<cluster::ClusterState> cluster;
  std::unique_ptr<scheduling::Scheduler> scheduler;
  std::unique_ptr<admission::AdmissionClusterView> admission_view;
  std::unique_ptr<scheduling::HealthLoop> health;  // declared last: stops first

  ExtenderStack() = default;
  ExtenderStack(ExtenderStack&&) = default;
  ExtenderStack& operator=(ExtenderStack&&) = default;
  ~ExtenderStack();
};

// Throws cluster::SnapshotError (a snapshot that cannot be loaded, naming
// the file and object) or std::invalid_argument (cluster.source kubernetes,
// not available in this build).
std::unique_ptr<ExtenderStack> make_extender_stack(
    const config::HostConfig& config, const host::PluginRegistry& registry,
    const log::Logger& logger, std::chrono::milliseconds health_period = kHealthPeriod);

}  // namespace hami::extender
