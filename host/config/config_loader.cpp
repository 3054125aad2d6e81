#include "config/config_loader.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "config/device_config.hpp"
#include "config/listen_address.hpp"
#include "config/listener_rules.hpp"
#include "config/self_managed_tls_config.hpp"
#include "config/yaml_json.hpp"
#include "config/yaml_reader.hpp"

namespace hami::config {
namespace {

constexpr int64_t kMaxInt = INT32_MAX;
constexpr int64_t kMaxBodyLimit = int64_t{1} << 30;  // 1 GiB

std::string index_path(std::string_view path, size_t i) {
  return std::string(path) + "[" + std::to_string(i) + "]";
}

bool valid_plugin_name(std::string_view name) {
  if (name.empty())
    return false;
  for (const char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
      return false;
  }
  return true;
}

void check_readable(const YamlReader& r, const std::filesystem::path& p, std::string_view key) {
  std::ifstream in(p, std::ios::binary);
  if (!in)
    r.fail(key, "cannot read \"" + p.string() + "\": " + std::strerror(errno));
}

ListenAddress read_address(const YamlReader& r, const YAML::Node& node, const std::string& key) {
  const std::string text = r.string(node, key, false);
  const auto addr = parse_listen_address(text);
  if (!addr)
    r.fail(key, std::string(kListenAddressExpected) + ", got " + describe_node(node));
  return *addr;
}

// A tls section at `path` ("tls", "extender.tls").
void read_tls(const YamlReader& r, const YAML::Node& node, const std::string& path,
              TlsConfig& out) {
  // Only the webhook listener's certificate is the Service's: selfManaged
  // belongs to tls alone.
  const bool webhook = path == "tls";
  if (!webhook && node.IsMap() && node["selfManaged"])
    r.fail(join_path(path, "selfManaged"), "only tls (the webhook listener's) can be self-managed");
  if (webhook) {
    r.expect_mapping(
        node, path,
        {"certFile", "keyFile", "clientCAFile", "selfSigned", "sessionResumption", "selfManaged"});
  } else {
    r.expect_mapping(node, path,
                     {"certFile", "keyFile", "clientCAFile", "selfSigned", "sessionResumption"});
  }
  if (node.IsNull())
    return;
  if (const auto n = node["selfManaged"])
    out.self_managed = read_self_managed_tls(r, n, join_path(path, "selfManaged"));
  if (const auto n = node["certFile"])
    out.cert_file = r.path(n, join_path(path, "certFile"));
  if (const auto n = node["keyFile"])
    out.key_file = r.path(n, join_path(path, "keyFile"));
  if (const auto n = node["clientCAFile"])
    out.client_ca_file = r.path(n, join_path(path, "clientCAFile"));
  if (const auto n = node["selfSigned"])
    out.self_signed = r.boolean(n, join_path(path, "selfSigned"));
  if (const auto n = node["sessionResumption"]) {
    out.session_resumption = r.boolean(n, join_path(path, "sessionResumption"));
  }
}

void validate_tls(const YamlReader& r, const TlsConfig& tls, const std::string& path) {
  const auto key = [&path](std::string_view name) { return join_path(path, name); };
  if (tls.self_managed) {
    if (tls.self_signed || !tls.cert_file.empty() || !tls.key_file.empty()) {
      r.fail(key("selfManaged"), "cannot be combined with " + key("certFile") + ", " +
                                     key("keyFile") + " or " + key("selfSigned"));
    }
  } else if (tls.self_signed) {
    if (!tls.cert_file.empty() || !tls.key_file.empty()) {
      r.fail(key("selfSigned"),
             "cannot be combined with " + key("certFile") + " or " + key("keyFile"));
    }
  } else {
    const std::string unless = "required unless " + key("selfSigned") + " is true" +
                               (path == "tls" ? " or " + key("selfManaged") + " is set" : "");
    if (tls.cert_file.empty())
      r.fail(key("certFile"), unless);
    if (tls.key_file.empty())
      r.fail(key("keyFile"), unless);
    check_readable(r, tls.cert_file, key("certFile"));
    check_readable(r, tls.key_file, key("keyFile"));
  }
  if (!tls.client_ca_file.empty())
    check_readable(r, tls.client_ca_file, key("clientCAFile"));
}

// The extender section; `listen_given` tells whether it names an address.
void read_extender(const YamlReader& r, const YAML::Node& node, ExtenderListenerConfig& out,
                   bool& listen_given) {
  r.expect_mapping(node, "extender", {"listen", "tls"});
  if (node.IsNull())
    return;
  if (const auto n = node["listen"]) {
    out.listen = read_address(r, n, "extender.listen");
    listen_given = true;
  }
  if (const auto n = node["tls"]) {
    out.tls.emplace();
    read_tls(r, n, "extender.tls", *out.tls);
  }
}

void read_server(const YamlReader& r, const YAML::Node& node, ServerConfig& out) {
  r.expect_mapping(
      node, "server",
      {"readTimeoutSeconds", "keepAliveTimeoutSeconds", "maxThreads", "maxQueued",
       "shutdownGraceSeconds", "webhookBodyLimit", "extenderBodyLimit", "extenderNodeCacheBytes"});
  if (node.IsNull())
    return;
  const auto int_key = [&](const char* key, int& field, int64_t min) {
    if (const auto n = node[key]) {
      field = static_cast<int>(r.integer(n, join_path("server", key), min, kMaxInt));
    }
  };
  const auto size_key = [&](const char* key, size_t& field) {
    if (const auto n = node[key]) {
      field = static_cast<size_t>(r.integer(n, join_path("server", key), 1, kMaxBodyLimit));
    }
  };
  int_key("readTimeoutSeconds", out.read_timeout_seconds, 1);
  int_key("keepAliveTimeoutSeconds", out.keep_alive_timeout_seconds, 1);
  int_key("maxThreads", out.max_threads, 1);
  int_key("maxQueued", out.max_queued, 1);
  int_key("shutdownGraceSeconds", out.shutdown_grace_seconds, 0);
  size_key("webhookBodyLimit", out.webhook_body_limit);
  size_key("extenderBodyLimit", out.extender_body_limit);
  if (const auto n = node["extenderNodeCacheBytes"]) {
    out.extender_node_cache_bytes = static_cast<size_t>(
        r.integer(n, join_path("server", "extenderNodeCacheBytes"), 0, kMaxBodyLimit));
  }
}

// One plugin entry; `config_json` is left empty when the entry has no inline
// config (the caller fills it).
PluginEntry read_plugin_entry(const YamlReader& r, const YAML::Node& node,
                              const std::string& path) {
  if (!node.IsMap())
    r.fail(path, "expected a mapping, got " + describe_node(node));
  r.expect_mapping(node, path, {"name", "library", "config"});
  PluginEntry entry;
  const auto name_node = node["name"];
  if (!name_node)
    r.fail(join_path(path, "name"), "required");
  entry.name = r.string(name_node, join_path(path, "name"), false);
  if (!valid_plugin_name(entry.name)) {
    r.fail(join_path(path, "name"),
           "expected a name made of a-z, 0-9, '_' and '-', got " + describe_node(name_node));
  }
  const auto lib_node = node["library"];
  if (!lib_node)
    r.fail(join_path(path, "library"), "required");
  entry.library = r.string(lib_node, join_path(path, "library"), false);
  if (const auto cfg = node["config"]) {
    if (!cfg.IsMap()) {
      r.fail(join_path(path, "config"), "expected a mapping, got " + describe_node(cfg));
    }
    entry.config_json = yaml_to_json(cfg, r.file(), join_path(path, "config"));
    entry.config_source = PluginEntry::ConfigSource::inline_config;
  }
  return entry;
}

void read_plugins(const YamlReader& r, const YAML::Node& node, PluginsConfig& out) {
  r.expect_mapping(node, "plugins",
                   {"directory", "allowWritable", "deviceConfigFile", "compareDeviceConfigMap",
                    "devices", "admission", "scheduling"});
  if (node.IsNull())
    return;
  if (const auto n = node["directory"])
    out.directory = r.path(n, "plugins.directory");
  if (const auto n = node["allowWritable"])
    out.allow_writable = r.boolean(n, "plugins.allowWritable");
  if (const auto n = node["deviceConfigFile"]) {
    out.device_config_file = r.path(n, "plugins.deviceConfigFile");
  }
  if (const auto n = node["compareDeviceConfigMap"]) {
    const std::string text = r.string(n, "plugins.compareDeviceConfigMap", true);
    const auto slash = text.find('/');
    if (!text.empty() && (slash == 0 || slash == std::string::npos || slash + 1 == text.size() ||
                          text.find('/', slash + 1) != std::string::npos)) {
      r.fail("plugins.compareDeviceConfigMap",
             "expected NAMESPACE/NAME (e.g. kube-system/hami-scheduler-device), got " +
                 describe_node(n));
    }
    out.compare_device_config_map = text;
  }
  std::set<std::string, std::less<>> names;
  const auto unique = [&](const PluginEntry& e, const std::string& path) {
    if (!names.insert(e.name).second) {
      r.fail(join_path(path, "name"), "duplicate plugin name \"" + e.name + "\"");
    }
  };
  if (const auto n = node["devices"]; n && !n.IsNull()) {
    r.expect_sequence(n, "plugins.devices");
    for (size_t i = 0; i < n.size(); ++i) {
      const std::string path = index_path("plugins.devices", i);
      out.devices.push_back(read_plugin_entry(r, n[i], path));
      unique(out.devices.back(), path);
    }
  }
  if (const auto n = node["admission"]; n && !n.IsNull()) {
    out.admission = read_plugin_entry(r, n, "plugins.admission");
    unique(*out.admission, "plugins.admission");
  }
  if (const auto n = node["scheduling"]; n && !n.IsNull()) {
    r.expect_sequence(n, "plugins.scheduling");
    for (size_t i = 0; i < n.size(); ++i) {
      const std::string path = index_path("plugins.scheduling", i);
      out.scheduling.push_back(read_plugin_entry(r, n[i], path));
      unique(out.scheduling.back(), path);
    }
  }
  if (out.count() > 0 && out.directory.empty()) {
    r.fail("plugins.directory", "required when plugins are listed");
  }
}

void read_node_lock(const YamlReader& r, const YAML::Node& node, NodeLockConfig& out) {
  r.expect_mapping(node, "scheduler.nodeLock", {"timeoutSeconds", "podGroupRetryTimeoutSeconds"});
  if (node.IsNull())
    return;
  if (const auto n = node["timeoutSeconds"]) {
    out.timeout_seconds =
        static_cast<int>(r.integer(n, "scheduler.nodeLock.timeoutSeconds", 1, kMaxInt));
  }
  if (const auto n = node["podGroupRetryTimeoutSeconds"]) {
    out.pod_group_retry_timeout_seconds = static_cast<int>(
        r.integer(n, "scheduler.nodeLock.podGroupRetryTimeoutSeconds", 0, kMaxInt));
  }
}

void read_scheduler(const YamlReader& r, const YAML::Node& node, SchedulerConfig& out) {
  r.expect_mapping(node, "scheduler",
                   {"name", "nodePolicy", "gpuPolicy", "allocateAt", "nodeLock"});
  if (node.IsNull())
    return;
  if (const auto n = node["name"])
    out.name = r.string(n, "scheduler.name", false);
  if (const auto n = node["nodePolicy"])
    out.node_policy = r.string(n, "scheduler.nodePolicy", false);
  if (const auto n = node["gpuPolicy"])
    out.gpu_policy = r.string(n, "scheduler.gpuPolicy", false);
  if (const auto n = node["allocateAt"]) {
    out.allocate_at = r.choice(n, "scheduler.allocateAt", {"bind", "filter"}) == "bind"
                          ? AllocateAt::bind
                          : AllocateAt::filter;
  }
  if (const auto n = node["nodeLock"])
    read_node_lock(r, n, out.node_lock);
}

void read_kubernetes(const YamlReader& r, const YAML::Node& node, KubernetesConfig& out) {
  constexpr std::string_view path = "cluster.kubernetes";
  r.expect_mapping(node, path, {"kubeconfig", "qps", "burst", "requestTimeoutSeconds", "events"});
  if (node.IsNull())
    return;
  if (const auto n = node["kubeconfig"])
    out.kubeconfig = r.path(n, "cluster.kubernetes.kubeconfig");
  if (const auto n = node["qps"])
    out.qps = r.number(n, "cluster.kubernetes.qps", 0, 100000);
  if (const auto n = node["burst"])
    out.burst = static_cast<int>(r.integer(n, "cluster.kubernetes.burst", 1, kMaxInt));
  if (const auto n = node["requestTimeoutSeconds"]) {
    out.request_timeout_seconds =
        static_cast<int>(r.integer(n, "cluster.kubernetes.requestTimeoutSeconds", 1, kMaxInt));
  }
  if (const auto n = node["events"]) {
    out.events = r.choice(n, "cluster.kubernetes.events", {"events.k8s.io/v1", "v1"}) == "v1"
                     ? EventsApi::core_v1
                     : EventsApi::events_v1;
  }
}

void read_leader_election(const YamlReader& r, const YAML::Node& node, LeaderElectionConfig& out) {
  r.expect_mapping(node, "cluster.leaderElection",
                   {"mode", "leaseNamespace", "leaseName", "identity", "leaseDurationSeconds",
                    "renewDeadlineSeconds", "retryPeriodSeconds", "roleLabel", "roleSelector"});
  if (node.IsNull())
    return;
  if (const auto n = node["mode"]) {
    const std::string mode =
        r.choice(n, "cluster.leaderElection.mode", {"none", "follow", "elect"});
    out.mode = mode == "none" ? LeaderMode::none
                              : (mode == "follow" ? LeaderMode::follow : LeaderMode::elect);
  }
  if (const auto n = node["leaseNamespace"])
    out.lease_namespace = r.string(n, "cluster.leaderElection.leaseNamespace", false);
  if (const auto n = node["leaseName"])
    out.lease_name = r.string(n, "cluster.leaderElection.leaseName", false);
  if (const auto n = node["identity"])
    out.identity = r.string(n, "cluster.leaderElection.identity", true);
  if (const auto n = node["roleLabel"])
    out.role_label = r.string(n, "cluster.leaderElection.roleLabel", true);
  if (const auto n = node["roleSelector"])
    out.role_selector = r.string(n, "cluster.leaderElection.roleSelector", true);
  const auto seconds = [&](const char* key, int& field) {
    if (const auto n = node[key]) {
      field = static_cast<int>(r.integer(n, join_path("cluster.leaderElection", key), 1, kMaxInt));
    }
  };
  seconds("leaseDurationSeconds", out.lease_duration_seconds);
  seconds("renewDeadlineSeconds", out.renew_deadline_seconds);
  seconds("retryPeriodSeconds", out.retry_period_seconds);
  // client-go's rule: the renew deadline must leave a safety margin before
  // the lease expires, and room for at least one retry (with jitter).
  if (out.lease_duration_seconds <= out.renew_deadline_seconds) {
    r.fail("cluster.leaderElection", "leaseDurationSeconds (" +
                                         std::to_string(out.lease_duration_seconds) +
                                         ") must be greater than renewDeadlineSeconds (" +
                                         std::to_string(out.renew_deadline_seconds) + ")");
  }
  if (out.renew_deadline_seconds * 10 <= out.retry_period_seconds * 12) {
    r.fail("cluster.leaderElection", "renewDeadlineSeconds (" +
                                         std::to_string(out.renew_deadline_seconds) +
                                         ") must be greater than 1.2 x retryPeriodSeconds (" +
                                         std::to_string(out.retry_period_seconds) + ")");
  }
}

void read_cluster(const YamlReader& r, const YAML::Node& node, ClusterConfig& out) {
  r.expect_mapping(node, "cluster", {"source", "file", "kubernetes", "leaderElection"});
  if (node.IsNull())
    return;
  if (const auto n = node["source"]) {
    out.source = r.choice(n, "cluster.source", {"file", "kubernetes"}) == "file"
                     ? ClusterSource::file
                     : ClusterSource::kubernetes;
  }
  if (const auto n = node["file"])
    out.file = r.path(n, "cluster.file");
  if (const auto n = node["kubernetes"])
    read_kubernetes(r, n, out.kubernetes);
  if (const auto n = node["leaderElection"])
    read_leader_election(r, n, out.leader_election);
  if (out.source == ClusterSource::file && !out.file.empty()) {
    check_readable(r, out.file, "cluster.file");
  }
  if (out.source == ClusterSource::kubernetes && !out.kubernetes.kubeconfig.empty()) {
    check_readable(r, out.kubernetes.kubeconfig, "cluster.kubernetes.kubeconfig");
  }
  if (out.leader_election.mode == LeaderMode::elect &&
      out.leader_election.lease_name == "kube-scheduler") {
    // Electing on the kube-scheduler's own lease would fight it for
    // leadership; follow is the mode for that lease.
    r.fail("cluster.leaderElection.leaseName",
           "\"kube-scheduler\" is kube-scheduler's own lease: mode elect needs a lease of its "
           "own (e.g. hami-scheduler), mode follow follows that one");
  }
  if (out.source == ClusterSource::file && out.leader_election.mode != LeaderMode::none) {
    r.fail("cluster.leaderElection.mode",
           std::string("\"") +
               (out.leader_election.mode == LeaderMode::follow ? "follow" : "elect") +
               "\" needs cluster.source kubernetes");
  }
}

void read_metrics(const YamlReader& r, const YAML::Node& node, MetricsConfig& out) {
  r.expect_mapping(node, "metrics", {"listen", "legacyMetrics"});
  if (node.IsNull())
    return;
  if (const auto n = node["listen"]) {
    const std::string text = r.string(n, "metrics.listen", true);
    if (!text.empty()) {
      const auto addr = parse_listen_address(text, true);
      if (!addr) {
        r.fail("metrics.listen",
               "expected ADDR:PORT or :PORT (e.g. :9395), or empty, got " + describe_node(n));
      }
      out.listen = *addr;
    }
  }
  if (const auto n = node["legacyMetrics"])
    out.legacy = r.boolean(n, "metrics.legacyMetrics");
}

void read_log(const YamlReader& r, const YAML::Node& node, LogConfig& out) {
  r.expect_mapping(node, "log", {"level", "format"});
  if (node.IsNull())
    return;
  if (const auto n = node["level"]) {
    out.level = *log::parse_level(r.choice(n, "log.level", {"debug", "info", "warn", "error"}));
  }
  if (const auto n = node["format"]) {
    out.format = *log::parse_format(r.choice(n, "log.format", {"text", "json"}));
  }
}

}  // namespace

void resolve_plugin_configs(PluginsConfig& plugins, std::string_view key) {
  std::optional<DeviceConfigFile> device_config;
  if (!plugins.device_config_file.empty())
    device_config = DeviceConfigFile::load(plugins.device_config_file, key);
  for (auto& e : plugins.devices) {
    if (e.config_source == PluginEntry::ConfigSource::inline_config)
      continue;
    if (device_config) {
      if (auto section = device_config->section_json(e.name)) {
        e.config_json = std::move(*section);
        e.config_source = PluginEntry::ConfigSource::device_config_file;
        continue;
      }
    }
    e.config_json = "{}";
    e.config_source = PluginEntry::ConfigSource::none;
  }
  const auto default_empty = [](PluginEntry& e) {
    if (e.config_source != PluginEntry::ConfigSource::inline_config)
      e.config_json = "{}";
  };
  if (plugins.admission)
    default_empty(*plugins.admission);
  for (auto& e : plugins.scheduling)
    default_empty(e);
}

std::string read_text_file(const std::filesystem::path& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::string msg;
    if (!what.empty()) {
      msg += what;
      msg += ": ";
    }
    throw ConfigError(msg + "cannot read \"" + path.string() + "\": " + std::strerror(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
    throw ConfigError(std::string(what) + ": cannot read \"" + path.string() + "\"");
  return text.str();
}

HostConfig load_config(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    throw ConfigError(file.string() + ": cannot read config file: " + std::strerror(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_config(text.str(), file);
}

HostConfig parse_config(const std::string& yaml_text, const std::filesystem::path& file) {
  const auto base = std::filesystem::absolute(file).parent_path();
  const YamlReader r(file.string(), base);
  const YAML::Node root = r.parse(yaml_text);
  if (!root.IsNull() && !root.IsMap()) {
    r.fail("", "expected a mapping at the top level, got " + describe_node(root));
  }
  r.expect_mapping(
      root, "",
      {"listen", "tls", "extender", "server", "plugins", "scheduler", "cluster", "metrics", "log"});
  HostConfig out;
  out.source = file;
  bool extender_listen_given = false;
  if (root.IsMap()) {
    if (const auto n = root["listen"])
      out.listen = read_address(r, n, "listen");
    if (const auto n = root["tls"])
      read_tls(r, n, "tls", out.tls);
    if (const auto n = root["extender"])
      read_extender(r, n, out.extender, extender_listen_given);
    if (const auto n = root["server"])
      read_server(r, n, out.server);
    if (const auto n = root["plugins"])
      read_plugins(r, n, out.plugins);
    if (const auto n = root["scheduler"])
      read_scheduler(r, n, out.scheduler);
    if (const auto n = root["cluster"])
      read_cluster(r, n, out.cluster);
    if (const auto n = root["metrics"])
      read_metrics(r, n, out.metrics);
    if (const auto n = root["log"])
      read_log(r, n, out.log);
  }
  validate_tls(r, out.tls, "tls");
  out.extender.shared = extender_listen_given && asks_to_share(out.listen, out.extender.listen);
  if (const auto problem = check_listeners(out))
    r.fail(problem->key, problem->what);
  if (out.extender.tls)
    validate_tls(r, *out.extender.tls, "extender.tls");
  resolve_plugin_configs(out.plugins);
  return out;
}

void apply_overrides(HostConfig& config, const Overrides& overrides) {
  if (overrides.listen) {
    const auto addr = parse_listen_address(*overrides.listen);
    if (!addr) {
      throw ConfigError("--listen: " + std::string(kListenAddressExpected) + ", got \"" +
                        *overrides.listen + "\"");
    }
    config.listen = *addr;
    // A shared socket moves as a whole; on a wildcard address the extender
    // verbs stay on its loopback side.
    if (config.extender.shared) {
      config.extender.listen =
          is_wildcard(*addr) ? ListenAddress{config.extender.listen.host, addr->port} : *addr;
    }
    if (const auto problem = check_listen_override(config))
      throw ConfigError("--listen: " + *problem);
  }
  if (overrides.plugin_dir) {
    config.plugins.directory = std::filesystem::absolute(*overrides.plugin_dir).lexically_normal();
  }
  if (overrides.cluster)
    apply_cluster_override(config.cluster, *overrides.cluster);
}

void apply_cluster_override(ClusterConfig& cluster, std::string_view value) {
  constexpr std::string_view kExpected = "expected kubernetes or file:PATH";
  constexpr std::string_view kFilePrefix = "file:";
  if (value == "kubernetes") {
    cluster.source = ClusterSource::kubernetes;
    return;
  }
  if (value.substr(0, kFilePrefix.size()) != kFilePrefix || value.size() == kFilePrefix.size()) {
    throw ConfigError("--cluster: " + std::string(kExpected) + ", got \"" + std::string(value) +
                      "\"");
  }
  const auto file =
      std::filesystem::absolute(std::filesystem::path(value.substr(kFilePrefix.size())))
          .lexically_normal();
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    throw ConfigError("--cluster: cannot read \"" + file.string() + "\": " + std::strerror(errno));
  }
  cluster.source = ClusterSource::file;
  cluster.file = file;
  // Leader election needs the API server; a snapshot run always leads.
  cluster.leader_election.mode = LeaderMode::none;
}

}  // namespace hami::config
