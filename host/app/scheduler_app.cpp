#include "app/scheduler_app.hpp"

#include <Poco/Util/HelpFormatter.h>
#include <Poco/Util/Option.h>
#include <Poco/Util/OptionSet.h>
#include <signal.h>

#include <cstdlib>
#include <iostream>

#include "app/config_summary.hpp"
#include "app/hami_flags.hpp"
#include "app/plugin_specs.hpp"
#include "app/scheduler_host.hpp"
#include "app/version.hpp"
#include "config/builtin_config.hpp"
#include "config/listen_address.hpp"
#include "extender/extender_stack.hpp"
#include "kube/api_client.hpp"
#include "kube/leader_detector.hpp"
#include "plugins/plugin_errors.hpp"
#include "server/tls_context.hpp"
#include "systemd/sd_notify.hpp"

namespace hami::app {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;

// Blocks the termination signals in this thread before any other thread
// exists, so every thread inherits the mask and only
// waitForTerminationRequest() (sigwait) ever receives them.
void block_termination_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGQUIT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

// One bounded request that says whether the API server answers and lets
// us read nodes; it never fails the check (the server may be out of reach
// from where the check runs).
std::string probe_api_server(kube::ApiConfig api) {
  api.request_timeout = std::chrono::seconds(5);
  api.max_retries = 1;
  api.qps = 0;
  try {
    kube::ApiClient client(std::move(api));
    client.get("/api/v1/nodes?limit=1");
    return "API server reachable, nodes readable";
  } catch (const kube::ApiError& e) {
    if (e.status() == 0)
      return std::string("API server not reachable: ") + e.what();
    return "API server answered " + std::to_string(e.status()) + ": " + e.what();
  } catch (const std::exception& e) {
    return std::string("API server not reachable: ") + e.what();
  }
}

// $POD_NAMESPACE, empty when unset.
std::string pod_namespace() {
  const char* value = std::getenv("POD_NAMESPACE");
  return value != nullptr ? value : "";
}

// "config FILE", or what stands for the built-in defaults.
std::string config_heading(const config::HostConfig& config) {
  return config.source.empty() ? "config (built-in defaults, no --config)"
                               : "config " + config.source.string();
}

// The "listening" log line of one listener.
void log_listening(const log::Logger& logger, std::string_view listener,
                   const server::HttpsServer& server) {
  const auto& tls = server.tls();
  logger.info("listening", {{"listener", std::string(listener)},
                            {"address", server.address()},
                            {"url", "https://" + server.address()},
                            {"tls", tls.self_signed ? "self-signed" : "files"},
                            {"certificate_sha256", tls.certificate_sha256}});
}

}  // namespace

SchedulerApp::SchedulerApp() {
  setUnixOptions(true);
}

int SchedulerApp::run_command_line(int argc, char** argv) {
  try {
    TranslatedCommandLine command_line =
        translate_command_line(std::vector<std::string>(argv, argv + argc));
    hami_ = std::move(command_line.hami);
    notices_ = std::move(command_line.ignored);
    init(command_line.args);
  } catch (const CommandLineError& e) {
    logger_.error("invalid command line", {{"error", e.what()}, {"help", "see --help"}});
    return kExitFailure;
  } catch (const Poco::Exception& e) {
    logger_.error("invalid command line", {{"error", e.displayText()}, {"help", "see --help"}});
    return kExitFailure;
  }
  return Application::run();
}

void SchedulerApp::defineOptions(Poco::Util::OptionSet& options) {
  // Not ServerApplication's: its --daemon/--pidfile/--umask are not offered
  // (run under a service manager instead).
  Application::defineOptions(options);
  using Poco::Util::Option;
  options.addOption(Option("config", "c",
                           "host configuration file (YAML); without it the built-in defaults "
                           "apply (HAMi-compatible: Kubernetes, the installed plugins)")
                        .required(false)
                        .repeatable(false)
                        .argument("FILE"));
  options.addOption(Option("listen", "l",
                           "webhook listener address, overrides listen in the config file (the "
                           "extender listener keeps extender.listen, unless the file shares one "
                           "socket: extender.listen equal to listen)")
                        .required(false)
                        .repeatable(false)
                        .argument("ADDR:PORT"));
  options.addOption(Option("plugin-dir", "p", "plugin directory, overrides the config file")
                        .required(false)
                        .repeatable(false)
                        .argument("DIR"));
  options.addOption(
      Option("cluster", "", "cluster source, overrides the config file: kubernetes or file:PATH")
          .required(false)
          .repeatable(false)
          .argument("SOURCE"));
  options.addOption(Option("check-config", "",
                           "validate the config, load every plugin, print a summary, exit 0/1")
                        .required(false)
                        .repeatable(false));
  options.addOption(
      Option("list-plugins", "", "load the configured plugins and print name, kind, versions")
          .required(false)
          .repeatable(false));
  options.addOption(Option("verbose", "v", "log at debug level").required(false).repeatable(true));
  options.addOption(Option("version", "", "print the version and exit").required(false));
  options.addOption(Option("help", "h", "print this help and exit").required(false));
  options.addOption(Option("help-hami", "",
                           "list the HAMi scheduler flags accepted, mapped onto config keys or "
                           "ignored with a warning, and exit")
                        .required(false));
}

void SchedulerApp::handleOption(const std::string& name, const std::string& value) {
  Application::handleOption(name, value);
  if (name == "config") {
    config_file_ = value;
  } else if (name == "listen") {
    overrides_.listen = value;
  } else if (name == "plugin-dir") {
    overrides_.plugin_dir = value;
  } else if (name == "cluster") {
    overrides_.cluster = value;
  } else if (name == "check-config") {
    mode_ = Mode::check_config;
  } else if (name == "list-plugins") {
    mode_ = Mode::list_plugins;
  } else if (name == "verbose") {
    verbose_ = true;
  } else if (name == "version") {
    mode_ = Mode::version;
    stopOptionsProcessing();
  } else if (name == "help") {
    mode_ = Mode::help;
    stopOptionsProcessing();
  } else if (name == "help-hami") {
    mode_ = Mode::help_hami;
    stopOptionsProcessing();
  }
}

void SchedulerApp::print_help() const {
  Poco::Util::HelpFormatter help(options());
  help.setCommand("hami-scheduler");
  help.setUsage(
      "[--config FILE] [--listen ADDR:PORT] [--plugin-dir DIR] [--cluster SOURCE] [-v] "
      "[HAMi flags] [--check-config | --list-plugins]");
  help.setHeader(
      "GPU-sharing scheduler for Kubernetes (HAMi-compatible): an HTTPS host serving the "
      "admission webhook on the webhook listener (listen) and the kube-scheduler extender on the "
      "extender listener (extender.listen, loopback by default), with vendor and policy logic in "
      "plugins.");
  help.setFooter(
      "Without --check-config or --list-plugins it serves until SIGTERM/SIGINT. "
      "Every config key is documented in config/example.yaml; without --config the built-in "
      "defaults apply: a config file's defaults, but self-signed TLS, cluster.source kubernetes "
      "($KUBECONFIG first when set), allocateAt filter and the plugins " +
      config::builtin_plugin_names() + " from " + std::string(config::kDefaultPluginDirectory) +
      ". " + hami_flags_summary());
  help.setUnixStyle(true);
  help.format(std::cout);
}

std::optional<config::HostConfig> SchedulerApp::load_config() {
  try {
    config::HostConfig config;
    if (config_file_) {
      config = config::load_config(*config_file_);
    } else {
      const char* kubeconfig = std::getenv("KUBECONFIG");
      config = config::builtin_config(kubeconfig != nullptr && *kubeconfig != '\0'
                                          ? std::optional<std::string>(kubeconfig)
                                          : std::nullopt);
    }
    std::vector<config::FlagNotice> notices = notices_;
    for (auto& notice : config::apply_hami_settings(config, hami_))
      notices.push_back(std::move(notice));
    config::apply_overrides(config, overrides_);
    if (verbose_)
      config.log.level = log::Level::debug;
    logger_.set_level(config.log.level);
    logger_.set_format(config.log.format);
    for (const auto& notice : notices) {
      logger_.warn(notice.ignored ? "HAMi flag ignored" : "HAMi flag applied differently",
                   {{"flag", notice.flag}, {"reason", notice.reason}});
    }
    return config;
  } catch (const config::ConfigError& e) {
    logger_.error("invalid configuration", {{"error", e.what()}});
    return std::nullopt;
  }
}

int SchedulerApp::check_config(const config::HostConfig& config) {
  try {
    host::HostServices services;
    attach_logger(services, logger_);
    const host::PluginRegistry registry = load_plugins(config, services);
    if (const std::string problem = check_policies(config.scheduler, registry); !problem.empty()) {
      throw config::ConfigError(config.name() + ": " + problem);
    }
    const bool kubernetes = config.cluster.source == config::ClusterSource::kubernetes;
    // The snapshot is loaded to validate it; the API server is only probed
    // (bounded by a short timeout), never watched.
    std::unique_ptr<extender::ExtenderStack> stack;
    std::optional<kube::ApiConfig> api;
    if (kubernetes) {
      api = extender::kubernetes_api_config(config.cluster.kubernetes);
    } else {
      stack = extender::make_extender_stack(config, registry, logger_);
    }
    // A self-managed certificate is made at start, from the Secret.
    if (!config.tls.self_managed)
      (void)server::make_server_tls(config.tls);
    if (config.extender.tls && !config.extender.shared)
      (void)server::make_server_tls(*config.extender.tls, nullptr,
                                    server::kCertificateCheckInterval, "extender.tls");
    std::cout << config_heading(config) << ": OK\n"
              << listeners_summary(config) << "plugins: " << registry.size() << " loaded from "
              << config.plugins.directory.string() << "\n";
    if (registry.size() > 0)
      std::cout << plugin_table(registry);
    if (kubernetes) {
      std::cout << "cluster: kubernetes " << api->server << " (" << api->origin << "), "
                << probe_api_server(*api) << "\n"
                << kubernetes_client_summary(config.cluster.kubernetes)
                << "leader election: " << leader_summary(config.cluster.leader_election) << "\n"
                << "leader role labels: "
                << role_labels_summary(config.cluster.leader_election, pod_namespace(),
                                       kube::leader_identity(""))
                << "\n";
    } else {
      std::cout << "cluster: file";
      if (!config.cluster.file.empty())
        std::cout << " " << config.cluster.file.string();
      std::cout << " (" << stack->cluster->nodes().size() << " nodes, "
                << stack->cluster->pods().size() << " pods)\n";
    }
    std::cout << settings_summary(config, registry);
    return kExitOk;
  } catch (const std::exception& e) {
    logger_.error("configuration check failed", {{"error", e.what()}});
    std::cout << config_heading(config) << ": FAILED: " << e.what() << "\n";
    return kExitFailure;
  }
}

int SchedulerApp::list_plugins(const config::HostConfig& config) {
  try {
    host::HostServices services;
    attach_logger(services, logger_);
    const host::PluginRegistry registry = load_plugins(config, services);
    std::cout << plugin_table(registry);
    return kExitOk;
  } catch (const std::exception& e) {
    logger_.error("plugin load failed", {{"error", e.what()}});
    return kExitFailure;
  }
}

int SchedulerApp::serve(const config::HostConfig& config) {
  block_termination_signals();
  logger_.info("starting", {{"version", std::string(kVersion)},
                            {"config", config.name()},
                            {"pid", std::to_string(::getpid())}});
  std::unique_ptr<SchedulerHost> host;
  try {
    host = std::make_unique<SchedulerHost>(config, logger_);
    host->start();
  } catch (const std::exception& e) {
    logger_.error("start failed", {{"error", e.what()}});
    return kExitFailure;
  }
  std::string serving;
  if (host->listeners_shared()) {
    // On a wildcard address the extender verbs answer only connections
    // made to its loopback side (config extender.listen).
    const bool loopback_only = !config::is_loopback(config.listen);
    log_listening(logger_, loopback_only ? "webhook+extender(loopback)" : "webhook+extender",
                  host->server());
    serving = host->server().address() +
              (loopback_only ? " (webhook; extender on " + config.extender.listen.text() + ")"
                             : std::string(" (webhook and extender)"));
  } else {
    log_listening(logger_, "webhook", host->server());
    log_listening(logger_, "extender", host->extender_server());
    serving = host->server().address() + " (webhook), " + host->extender_server().address() +
              " (extender)";
  }
  if (const auto* metrics = host->metrics_listener()) {
    logger_.info("metrics listening", {{"address", metrics->address()},
                                       {"url", "http://" + metrics->address() + "/metrics"}});
  }
  // Type=notify: the unit is started once the sockets serve, not before.
  if (const auto sent = systemd::notify(std::string(systemd::kReady) + "\n" +
                                        systemd::status_message("serving on " + serving));
      sent.outcome == systemd::NotifyOutcome::failed) {
    logger_.warn("cannot notify the service manager", {{"error", sent.error}});
  }
  waitForTerminationRequest();
  (void)systemd::notify(systemd::kStopping);
  const auto grace = std::chrono::seconds(config.server.shutdown_grace_seconds);
  logger_.info("shutting down", {{"grace_seconds", std::to_string(grace.count())}});
  const bool finished = host->shutdown(grace);
  host.reset();
  logger_.info("stopped", {{"in_flight_finished", finished ? "true" : "false"}});
  return kExitOk;
}

int SchedulerApp::main(const std::vector<std::string>& args) {
  if (mode_ == Mode::help) {
    print_help();
    return kExitOk;
  }
  if (mode_ == Mode::help_hami) {
    std::cout << hami_flags_help();
    return kExitOk;
  }
  if (mode_ == Mode::version) {
    std::cout << "hami-scheduler " << kVersion << " (plugin ABI " << HAMI_ABI_MAJOR << "."
              << HAMI_ABI_MINOR << ")\n";
    return kExitOk;
  }
  if (!args.empty()) {
    logger_.error("unexpected argument", {{"argument", args.front()}, {"error", "see --help"}});
    return kExitFailure;
  }
  const auto config = load_config();
  if (!config)
    return kExitFailure;
  switch (mode_) {
    case Mode::check_config:
      return check_config(*config);
    case Mode::list_plugins:
      return list_plugins(*config);
    default:
      return serve(*config);
  }
}

}  // namespace hami::app
