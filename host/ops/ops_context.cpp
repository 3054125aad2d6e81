#include "ops/ops_context.hpp"

#include <chrono>
#include <cstdlib>
#include <utility>

#include "app/plugin_specs.hpp"
#include "app/scheduler_host.hpp"
#include "config/builtin_config.hpp"
#include "config/config_loader.hpp"
#include "extender/extender_stack.hpp"
#include "kube/api_client.hpp"
#include "kube/api_config.hpp"
#include "ops/live_snapshot.hpp"

namespace hami::ops {

config::HostConfig load_ops_config(const OpsOptions& options) {
  config::HostConfig config;
  if (options.config) {
    config = config::load_config(*options.config);
  } else {
    const char* kubeconfig = std::getenv("KUBECONFIG");
    config = config::builtin_config(kubeconfig != nullptr && *kubeconfig != '\0'
                                        ? std::optional<std::string>(kubeconfig)
                                        : std::nullopt);
  }
  config::Overrides overrides;
  overrides.plugin_dir = options.plugin_dir;
  overrides.cluster = options.cluster;
  config::apply_overrides(config, overrides);
  return config;
}

namespace {

// The cluster as a JSON List: the snapshot file, or the API server read once.
std::unique_ptr<cluster::FileClusterState> read_cluster(const config::HostConfig& config,
                                                        const log::Logger& logger) {
  if (config.cluster.source == config::ClusterSource::file) {
    if (config.cluster.file.empty())
      return std::make_unique<cluster::FileClusterState>();
    return cluster::FileClusterState::load(config.cluster.file);
  }
  kube::ApiClient api(extender::kubernetes_api_config(config.cluster.kubernetes), &logger);
  const std::string text = read_live_snapshot(api);
  return cluster::FileClusterState::from_text(text, api.config().server);
}

}  // namespace

std::optional<std::string> option_value(std::span<const std::string> args, size_t& i,
                                        std::string_view name) {
  const std::string& arg = args[i];
  if (!arg.starts_with("--") || arg.compare(2, name.size(), name) != 0)
    return std::nullopt;
  const std::string_view rest = std::string_view(arg).substr(2 + name.size());
  if (rest.starts_with("=")) {
    ++i;
    return std::string(rest.substr(1));
  }
  if (!rest.empty())
    return std::nullopt;  // a longer option name
  if (i + 1 >= args.size())
    throw UsageError("--" + std::string(name) + ": a value is needed");
  i += 2;
  return args[i - 1];
}

log::Level ops_log_level(const OpsOptions& options) {
  return options.verbose ? log::Level::debug : log::Level::warn;
}

std::vector<std::string> take_ops_options(std::span<const std::string> args, OpsOptions& options) {
  std::vector<std::string> rest;
  const auto once = [](auto& slot, std::string_view name, std::string value) {
    if (slot)
      throw UsageError("--" + std::string(name) + ": given twice");
    slot = std::move(value);
  };
  for (size_t i = 0; i < args.size();) {
    if (auto v = option_value(args, i, "config")) {
      once(options.config, "config", std::move(*v));
    } else if (auto d = option_value(args, i, "plugin-dir")) {
      once(options.plugin_dir, "plugin-dir", std::move(*d));
    } else if (auto c = option_value(args, i, "cluster")) {
      once(options.cluster, "cluster", std::move(*c));
    } else if (args[i] == "-v" || args[i] == "--verbose") {
      options.verbose = true;
      ++i;
    } else {
      rest.push_back(args[i]);
      ++i;
    }
  }
  return rest;
}

std::unique_ptr<OpsContext> OpsContext::open(const OpsOptions& options, const log::Logger& logger) {
  std::unique_ptr<OpsContext> ctx(new OpsContext(logger));
  try {
    ctx->config_ = load_ops_config(options);
    ctx->now_ = std::chrono::duration_cast<std::chrono::seconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
    app::attach_logger(ctx->services_, logger);
    ctx->services_.set_clock([now = ctx->now_] { return now; });
    ctx->registry_ = app::load_plugins(ctx->config_, ctx->services_);
    if (std::string problem = app::check_policies(ctx->config_.scheduler, ctx->registry_);
        !problem.empty()) {
      throw OpsError(ctx->config_.name() + ": " + problem);
    }
    ctx->cluster_ = read_cluster(ctx->config_, logger);
    ctx->snapshot_ = ctx->cluster_->to_json();
  } catch (const OpsError&) {
    throw;
  } catch (const std::exception& e) {
    throw OpsError(e.what());
  }
  return ctx;
}

OpsContext::~OpsContext() = default;

PolicyPair OpsContext::default_policies() const {
  return {app::effective_policy(config_.scheduler, registry_, true),
          app::effective_policy(config_.scheduler, registry_, false)};
}

cluster::FileClusterState& OpsContext::cluster() {
  return *cluster_;
}

scheduling::Scheduler& OpsContext::scheduler() {
  if (!scheduler_)
    scheduler_ = make_scheduler(*cluster_);
  return *scheduler_;
}

std::unique_ptr<cluster::FileClusterState> OpsContext::copy_cluster() const {
  return cluster::FileClusterState::from_text(snapshot_, "cluster copy");
}

std::unique_ptr<scheduling::Scheduler> OpsContext::make_scheduler(cluster::ClusterState& cluster,
                                                                  const PolicyPair& policies,
                                                                  bool single_thread) const {
  const config::SchedulerConfig& s = config_.scheduler;
  scheduling::SchedulerOptions options;
  options.scheduler_name = s.name;
  options.node_policy = policies.node.empty() ? s.node_policy : policies.node;
  options.gpu_policy = policies.gpu.empty() ? s.gpu_policy : policies.gpu;
  options.allocate_at = s.allocate_at == config::AllocateAt::filter ? scheduling::AllocateAt::Filter
                                                                    : scheduling::AllocateAt::Bind;
  options.node_lock.expiry_seconds = s.node_lock.timeout_seconds;
  // A contended lock fails at once: nothing in memory releases it later.
  options.pod_group_lock_retry = std::chrono::milliseconds(0);
  options.clock = [now = now_] { return now; };
  options.logger = &logger_;
  if (single_thread)
    options.filter_workers = 0;
  return std::make_unique<scheduling::Scheduler>(cluster, registry_.devices(),
                                                 registry_.scheduling(), std::move(options));
}

}  // namespace hami::ops
