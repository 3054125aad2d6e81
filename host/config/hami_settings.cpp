#include "config/hami_settings.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "config/config_error.hpp"
#include "config/config_loader.hpp"
#include "config/listen_address.hpp"
#include "config/listener_rules.hpp"

namespace hami::config {
namespace {

// client-go's rest.DefaultQPS and rest.DefaultBurst: what HAMi's 0 means.
constexpr double kClientGoQps = 5.0;
constexpr int kClientGoBurst = 10;
constexpr double kMaxQps = 100000;  // the file's bound of cluster.kubernetes.qps
constexpr int64_t kMaxInt = INT32_MAX;
constexpr int64_t kNanosPerSecond = 1'000'000'000;

[[noreturn]] void fail(std::string_view flag, const std::string& what) {
  throw ConfigError(std::string(flag) + ": " + what);
}

std::filesystem::path from_cwd(const std::string& path) {
  return std::filesystem::absolute(path).lexically_normal();
}

void check_readable(std::string_view flag, const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fail(flag, "cannot read \"" + path.string() + "\": " + std::strerror(errno));
}

std::string in_quotes(const std::string& text) {
  return "\"" + text + "\"";
}

std::string seconds_text(int64_t seconds) {
  return std::to_string(seconds) + "s";
}

// A Go duration as whole seconds within [min_seconds, INT32_MAX], rounded
// up; a rounded value is noticed.
int duration_seconds(std::string_view flag, std::chrono::nanoseconds value, int64_t min_seconds,
                     std::vector<FlagNotice>& notices) {
  const int64_t nanos = value.count();
  if (nanos < min_seconds * kNanosPerSecond) {
    fail(flag, "expected a duration of at least " + seconds_text(min_seconds) + ", got " +
                   std::to_string(nanos) + "ns");
  }
  const int64_t seconds = nanos / kNanosPerSecond + (nanos % kNanosPerSecond != 0 ? 1 : 0);
  if (seconds > kMaxInt)
    fail(flag, "expected a duration of at most " + seconds_text(kMaxInt));
  if (nanos % kNanosPerSecond != 0) {
    notices.push_back(
        {std::string(flag),
         "rounded up to " + seconds_text(seconds) + ": the setting counts whole seconds", false});
  }
  return static_cast<int>(seconds);
}

void apply_tls(HostConfig& config, const HamiSettings& h) {
  if (!h.cert_file && !h.key_file)
    return;
  if (!h.cert_file)
    fail("--key_file", "needs --cert_file as well (this host always serves HTTPS)");
  if (!h.key_file)
    fail("--cert_file", "needs --key_file as well (this host always serves HTTPS)");
  config.tls.self_signed = false;
  config.tls.self_managed.reset();  // the files given replace a self-managed certificate
  config.tls.cert_file = from_cwd(*h.cert_file);
  config.tls.key_file = from_cwd(*h.key_file);
  check_readable("--cert_file", config.tls.cert_file);
  check_readable("--key_file", config.tls.key_file);
}

// --http_bind: the webhook listener, and the extender verbs where HAMi's
// kube-scheduler config calls them: on loopback at the same port.
// With --extender-bind the extender verbs are placed by that flag, and
// HAMi does not serve them on --http_bind (`extender_bound`).
void apply_http_bind(HostConfig& config, const std::string& text, bool extender_bound,
                     std::vector<FlagNotice>& notices) {
  constexpr std::string_view kFlag = "--http_bind";
  auto addr = parse_listen_address(text, true);
  if (!addr)
    fail(kFlag, "expected ADDR:PORT (e.g. 0.0.0.0:443 or :443), got " + in_quotes(text));
  if (addr->host.empty())
    addr->host = "0.0.0.0";  // Go's ":443": every address
  const bool was_shared = config.extender.shared;
  config.listen = *addr;
  if (is_loopback(*addr)) {
    config.extender.listen = *addr;
    config.extender.shared = true;
  } else if (is_wildcard(*addr)) {
    config.extender.listen = ListenAddress{"127.0.0.1", addr->port};
    config.extender.shared = true;
  } else {
    config.extender.shared = false;
    if (was_shared)
      config.extender.listen = ListenAddress{"127.0.0.1", kDefaultExtenderPort};
    if (!extender_bound)
      notices.push_back(
          {std::string(kFlag),
           "HAMi serves the extender verbs on " + addr->text() +
               " too; here they stay on the extender listener " + config.extender.listen.text() +
               " (loopback only): point kube-scheduler's extender urlPrefix at https://" +
               config.extender.listen.text(),
           false});
  }
  if (config.extender.shared && config.extender.tls) {
    fail(kFlag, "the extender verbs share this socket, as HAMi serves them, so extender.tls of " +
                    config.name() + " cannot apply; remove it");
  }
  if (const auto problem = check_listeners(config))
    fail(kFlag, problem->key + ": " + problem->what);
}

// --extender-bind (HAMi's main branch): the extender verbs' own address.
void apply_extender_bind(HostConfig& config, const std::string& text) {
  constexpr std::string_view kFlag = "--extender-bind";
  auto addr = parse_listen_address(text, true);
  if (!addr)
    fail(kFlag, "expected ADDR:PORT (e.g. 127.0.0.1:9444), got " + in_quotes(text));
  if (addr->host.empty())
    addr->host = "0.0.0.0";  // Go's ":9444": every address
  config.extender.listen = *addr;
  config.extender.shared = asks_to_share(config.listen, *addr);
  if (config.extender.shared && config.extender.tls) {
    fail(kFlag, "the extender verbs share the webhook listener's socket, so extender.tls of " +
                    config.name() + " cannot apply; remove it");
  }
  if (const auto problem = check_listeners(config))
    fail(kFlag, problem->key + ": " + problem->what);
}

// The admission plugin's config object with `key` set to `value`.
void set_admission_key(PluginEntry& admission, const char* key, bool value) {
  rapidjson::Document doc;
  doc.Parse(admission.config_json.c_str());
  if (doc.HasParseError() || !doc.IsObject())
    doc.SetObject();
  if (doc.HasMember(key))
    doc.RemoveMember(key);
  doc.AddMember(rapidjson::StringRef(key), rapidjson::Value(value), doc.GetAllocator());
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> writer(out);
  doc.Accept(writer);
  admission.config_json = out.GetString();
  admission.config_source = PluginEntry::ConfigSource::inline_config;
}

void apply_kubernetes_client(KubernetesConfig& kube, const HamiSettings& h,
                             std::vector<FlagNotice>& notices) {
  if (h.kube_qps) {
    // client-go: 0 means its default, a negative rate no limit.
    const double qps = *h.kube_qps == 0 ? kClientGoQps : (*h.kube_qps < 0 ? 0 : *h.kube_qps);
    if (qps > kMaxQps)
      fail("--kube-qps", "expected at most 100000");
    kube.qps = qps;
  }
  if (h.kube_burst) {
    if (*h.kube_burst < 0 || *h.kube_burst > kMaxInt)
      fail("--kube-burst", "expected 0 (client-go's 10) or a positive number");
    kube.burst = *h.kube_burst == 0 ? kClientGoBurst : static_cast<int>(*h.kube_burst);
  }
  if (h.kube_timeout_seconds) {
    if (*h.kube_timeout_seconds < 0 || *h.kube_timeout_seconds > kMaxInt)
      fail("--kube-timeout", "expected 0 or a positive number of seconds");
    if (*h.kube_timeout_seconds == 0) {
      notices.push_back({"--kube-timeout",
                         "0 (no timeout) is not offered here: API requests keep a timeout of " +
                             seconds_text(kube.request_timeout_seconds) +
                             " (cluster.kubernetes.requestTimeoutSeconds)",
                         false});
    } else {
      kube.request_timeout_seconds = static_cast<int>(*h.kube_timeout_seconds);
    }
  }
}

void apply_leader_election(ClusterConfig& cluster, const HamiSettings& h,
                           const std::string& config_name) {
  LeaderElectionConfig& le = cluster.leader_election;
  if (h.leader_elect_resource_name) {
    if (h.leader_elect_resource_name->empty())
      fail("--leader-elect-resource-name", "expected the name of the Lease to follow, got \"\"");
    le.lease_name = *h.leader_elect_resource_name;
  }
  if (h.leader_elect_resource_namespace) {
    if (h.leader_elect_resource_namespace->empty())
      fail("--leader-elect-resource-namespace", "expected the Lease's namespace, got \"\"");
    le.lease_namespace = *h.leader_elect_resource_namespace;
  }
  if (!h.leader_elect)
    return;
  if (!*h.leader_elect) {
    le.mode = LeaderMode::none;
    return;
  }
  if (cluster.source != ClusterSource::kubernetes) {
    fail("--leader-elect",
         "needs cluster.source kubernetes (the Lease is read from the API server), but " +
             config_name + " sets cluster.source file");
  }
  le.mode = LeaderMode::follow;
}

}  // namespace

std::vector<FlagNotice> apply_hami_settings(HostConfig& config, const HamiSettings& h) {
  std::vector<FlagNotice> notices;
  const bool self_signed_before = config.tls.self_signed;
  apply_tls(config, h);
  if (h.http_bind) {
    apply_http_bind(config, *h.http_bind, h.extender_bind.has_value(), notices);
    if (!h.cert_file && self_signed_before) {
      notices.push_back(
          {"--http_bind",
           "without --cert_file and --key_file HAMi serves plain HTTP; this host serves HTTPS "
           "only, here with a self-signed certificate (kube-scheduler's extender urlPrefix must "
           "be https://, as HAMi's chart renders it with the admission webhook enabled)",
           false});
    }
  }
  if (h.extender_bind)
    apply_extender_bind(config, *h.extender_bind);
  if (h.scheduler_name) {
    if (h.scheduler_name->empty()) {
      notices.push_back({"--scheduler-name",
                         "empty: HAMi then leaves spec.schedulerName alone; this host always sets "
                         "it, to scheduler.name " +
                             in_quotes(config.scheduler.name),
                         true});
    } else {
      config.scheduler.name = *h.scheduler_name;
    }
  }
  if (h.node_policy)
    config.scheduler.node_policy = *h.node_policy;
  if (h.gpu_policy)
    config.scheduler.gpu_policy = *h.gpu_policy;
  if (h.metrics_bind_address) {
    if (h.metrics_bind_address->empty()) {
      config.metrics.listen.reset();
    } else {
      const auto addr = parse_listen_address(*h.metrics_bind_address, true);
      if (!addr) {
        fail("--metrics-bind-address",
             "expected ADDR:PORT or :PORT (e.g. :9395), got " + in_quotes(*h.metrics_bind_address));
      }
      config.metrics.listen = *addr;
    }
  }
  apply_kubernetes_client(config.cluster.kubernetes, h, notices);
  if (h.node_lock_timeout) {
    config.scheduler.node_lock.timeout_seconds =
        duration_seconds("--node-lock-timeout", *h.node_lock_timeout, 1, notices);
  }
  if (h.node_lock_retry_timeout) {
    config.scheduler.node_lock.pod_group_retry_timeout_seconds =
        duration_seconds("--node-lock-retry-timeout", *h.node_lock_retry_timeout, 0, notices);
  }
  if (h.device_config_file) {
    config.plugins.device_config_file = from_cwd(*h.device_config_file);
    resolve_plugin_configs(config.plugins, "--device-config-file");
  }
  if (h.force_overwrite_default_scheduler) {
    if (config.plugins.admission) {
      set_admission_key(*config.plugins.admission, "forceOverwriteDefaultScheduler",
                        *h.force_overwrite_default_scheduler);
    } else {
      notices.push_back({"--force-overwrite-default-scheduler",
                         "no admission plugin is configured in " + config.name(), true});
    }
  }
  apply_leader_election(config.cluster, h, config.name());
  if (h.legacy_metrics)
    config.metrics.legacy = *h.legacy_metrics;
  if (h.klog_verbosity)
    config.log.level = *h.klog_verbosity >= 5 ? log::Level::debug : log::Level::info;
  return notices;
}

}  // namespace hami::config
