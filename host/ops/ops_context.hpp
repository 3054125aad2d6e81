// OpsContext: what every operator command (explain, simulate, snapshot)
// needs, built from its command line — the host config, its plugins, an
// in-memory copy of the cluster and a Scheduler on that copy. Nothing it
// builds writes to a real cluster: the copy is a cluster::FileClusterState
// (its writes stay in memory), so the scheduler's node health check, node
// locks and binds change only the copy.
//
// Options (every command accepts them, as `--name VALUE` or `--name=VALUE`):
//   --config FILE       the host config (as `hami-scheduler --config`);
//                       without it the built-in defaults apply
//   --plugin-dir DIR    overrides plugins.directory
//   --cluster SOURCE    file:PATH (a snapshot) or kubernetes (the config's
//                       cluster.kubernetes API server, read once, GET only,
//                       through ops/live_snapshot.hpp); default: the
//                       config's cluster
//   -v, --verbose       log at debug level (stderr), as `hami-scheduler -v`
//
// Use:
//   OpsOptions options;
//   std::vector<std::string> rest = take_ops_options(args, options);  // UsageError
//   auto ctx = OpsContext::open(options, logger);                     // OpsError
//   ctx->scheduler().filter(pod, names) ... // on ctx->cluster()
// For independent runs on the same snapshot (simulate's policy pairs):
//   auto copy = ctx->copy_cluster();
//   auto scheduler = ctx->make_scheduler(*copy, {"spread", "binpack"});
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "cluster/file_cluster.hpp"
#include "config/host_config.hpp"
#include "log/logger.hpp"
#include "plugins/host_services.hpp"
#include "plugins/plugin_registry.hpp"
#include "scheduling/scheduler.hpp"

namespace hami::ops {

// A command line the command cannot run with (exit code 2).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A command that cannot run: config, plugins or cluster (exit code 1). The
// message says what and where.
class OpsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct OpsOptions {
  std::optional<std::filesystem::path> config;
  std::optional<std::filesystem::path> plugin_dir;
  std::optional<std::string> cluster;  // "kubernetes" | "file:PATH"
  bool verbose = false;                // -v, --verbose
};

// The options above as the lines of a command's --help.
inline constexpr std::string_view kOpsOptionsHelp =
    "  --config FILE          the host config, as for the server (default: the built-in\n"
    "                         defaults)\n"
    "  --plugin-dir DIR       overrides plugins.directory\n"
    "  --cluster SOURCE       file:PATH (a snapshot) or kubernetes (the API server of\n"
    "                         cluster.kubernetes, read once, GET only); default: the\n"
    "                         config's cluster\n"
    "  -v, --verbose          log at debug level on stderr\n"
    "  -h, --help             print this help and exit\n";

// The level of a command's logger: debug with -v, else warn.
log::Level ops_log_level(const OpsOptions& options);

// Takes --config, --plugin-dir, --cluster and -v/--verbose out of `args`
// into `options` and returns the other arguments in order. Throws
// UsageError for an option without its value or given twice.
std::vector<std::string> take_ops_options(std::span<const std::string> args, OpsOptions& options);

// The value of `--name VALUE` / `--name=VALUE` at args[i] (advancing i past
// it), or nullopt when args[i] is not that option. Throws UsageError when
// the value is missing. For the commands' own options.
std::optional<std::string> option_value(std::span<const std::string> args, size_t& i,
                                        std::string_view name);

// The host config the options name (the built-in defaults without
// --config) with --plugin-dir and --cluster applied. Throws
// config::ConfigError.
config::HostConfig load_ops_config(const OpsOptions& options);

// A node and a device policy pair, e.g. {"binpack", "spread"}.
struct PolicyPair {
  std::string node;
  std::string gpu;
};

class OpsContext {
 public:
  // Loads the config and its plugins, checks the configured policies, and
  // reads the cluster into memory. Throws OpsError.
  static std::unique_ptr<OpsContext> open(const OpsOptions& options, const log::Logger& logger);

  ~OpsContext();
  OpsContext(const OpsContext&) = delete;
  OpsContext& operator=(const OpsContext&) = delete;

  const config::HostConfig& config() const { return config_; }
  const host::PluginRegistry& plugins() const { return registry_; }
  // The policies in force when a pod names none (the config's, else the
  // scheduling plugins' defaults).
  PolicyPair default_policies() const;

  // The in-memory cluster and a Scheduler on it with the config's options
  // (built on first use).
  cluster::FileClusterState& cluster();
  scheduling::Scheduler& scheduler();

  // A fresh copy of the cluster as it was read, before any write.
  std::unique_ptr<cluster::FileClusterState> copy_cluster() const;
  // A scheduler over `cluster` with the config's options and `policies`
  // (an empty member: the config's). `cluster` must outlive it, and so must
  // this context (it holds the plugins). Filter runs on the calling thread
  // only when `single_thread`.
  std::unique_ptr<scheduling::Scheduler> make_scheduler(cluster::ClusterState& cluster,
                                                        const PolicyPair& policies = {},
                                                        bool single_thread = false) const;

  // Unix seconds the context was opened at: every scheduler it makes runs
  // on this fixed clock, so a run is repeatable.
  int64_t now() const { return now_; }

 private:
  explicit OpsContext(const log::Logger& logger) : logger_(logger) {}

  const log::Logger& logger_;
  config::HostConfig config_;
  host::HostServices services_;
  host::PluginRegistry registry_;
  std::string snapshot_;  // the cluster as read, a JSON List
  int64_t now_ = 0;
  std::unique_ptr<cluster::FileClusterState> cluster_;
  std::unique_ptr<scheduling::Scheduler> scheduler_;
};

}  // namespace hami::ops
