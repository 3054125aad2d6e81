// HostConfig: the parsed, validated host configuration (interfaces §C).
// Plain data. Every path is absolute: relative paths in the file resolve
// against the folder of the config file, relative paths on the command line
// against the working directory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "log/logger.hpp"

namespace hami::config {

// The webhook listener's default port; the extender listener's
// (kDefaultExtenderPort) is the next one.
inline constexpr uint16_t kDefaultListenPort = 8443;
inline constexpr uint16_t kDefaultExtenderPort = 8444;

// ADDR:PORT, where ADDR is an IPv4 address, a host name, or an IPv6 address
// in brackets. Port 0 asks the kernel for an ephemeral port.
struct ListenAddress {
  std::string host = "127.0.0.1";
  uint16_t port = kDefaultListenPort;

  // The canonical text, "127.0.0.1:8443", "[::1]:8443", or ":9395" for an
  // empty host (every IPv4 address; only where a caller allows it).
  std::string text() const;
};

// tls.selfManaged: the host keeps its own CA and serving certificate in a
// Secret of type kubernetes.io/tls and the caBundle of its webhook
// configuration up to date (webhook_tls/self_managed_tls.hpp).
struct SelfManagedTlsConfig {
  std::string secret;            // the Secret's name
  std::string secret_namespace;  // empty: $POD_NAMESPACE, else the API client's namespace
  std::string service;           // the webhook's Service, in the Secret's namespace
  // The MutatingWebhookConfiguration whose webhooks calling `service` get
  // the CA as caBundle; empty: none is patched.
  std::string webhook_configuration;
  // Names the serving certificate carries; empty dns_names: <svc>, <svc>.<ns>,
  // <svc>.<ns>.svc, <svc>.<ns>.svc.cluster.local.
  std::vector<std::string> dns_names;
  std::vector<std::string> ip_addresses;
  int ca_days = 3650;
  int leaf_days = 365;
  int renew_before_days = 30;  // renew a certificate this long before its notAfter
  int check_interval_seconds = 3600;
  // Where the PEMs the listener serves are written; empty: a private
  // temporary folder made at start and removed at exit.
  std::filesystem::path directory;
};

struct TlsConfig {
  std::filesystem::path cert_file;       // PEM chain; empty when self_signed
  std::filesystem::path key_file;        // PEM private key (unencrypted)
  std::filesystem::path client_ca_file;  // non-empty: clients must present a cert from it
  bool self_signed = false;              // generate a certificate in memory at start
  bool session_resumption = true;        // false: no session cache, no tickets
  std::optional<SelfManagedTlsConfig> self_managed;  // webhook listener's tls only
};

// The extender listener (config `extender`): the kube-scheduler verbs
// (/filter, /schedule, /prioritize, /bind), /allocations and the health
// routes, for the kube-scheduler running next to the host. The webhook
// listener (`listen`, `tls`) serves the admission webhook, health and
// /metrics: what the cluster may reach. A route asked on the other
// listener is 404.
struct ExtenderListenerConfig {
  ListenAddress listen{"127.0.0.1", kDefaultExtenderPort};
  // nullopt: the webhook listener's settings (HostConfig::tls).
  std::optional<TlsConfig> tls;
  // One socket, the webhook listener's, serves the extender verbs too
  // (`tls` above is then unused), when extender.listen is
  //  - equal to listen, on a loopback address: the socket serves both
  //    route sets;
  //  - a loopback address on the port of a wildcard listen (0.0.0.0:443
  //    and 127.0.0.1:443, HAMi's chart's layout): Linux cannot bind both,
  //    so the wildcard socket serves the extender verbs only on
  //    connections made to a loopback address (what 127.0.0.1:443
  //    reaches: the pod's own containers), the webhook routes on all.
  // --listen then moves the shared socket.
  bool shared = false;
};

struct ServerConfig {
  int read_timeout_seconds = 10;
  int keep_alive_timeout_seconds = 15;
  int max_threads = 16;
  int max_queued = 256;
  int shutdown_grace_seconds = 10;
  std::size_t webhook_body_limit = 3u * 1024u * 1024u;
  std::size_t extender_body_limit = 64u * 1024u * 1024u;
  // Memory for Node objects of full-Nodes extender calls kept to be reused
  // by later calls that send the same bytes (extender::NodeObjectCache);
  // 0 turns the reuse off.
  std::size_t extender_node_cache_bytes = 64u * 1024u * 1024u;
};

struct PluginEntry {
  std::string name;
  std::string library;      // as written: a file name inside plugins.directory
  std::string config_json;  // always a JSON object text
  // Where config_json came from: the entry's `config`, the device-config
  // file's section, or neither (then "{}").
  enum class ConfigSource {
    inline_config,
    device_config_file,
    none
  } config_source = ConfigSource::none;
};

struct PluginsConfig {
  std::filesystem::path directory;
  bool allow_writable = false;
  std::filesystem::path device_config_file;  // empty: none
  // plugins.compareDeviceConfigMap: "<namespace>/<name>" of the ConfigMap
  // whose device-config.yaml HAMi's device plugins read, compared with the
  // device plugins' config (kube/device_config_drift.hpp); empty: none.
  std::string compare_device_config_map;
  std::vector<PluginEntry> devices;
  std::optional<PluginEntry> admission;
  std::vector<PluginEntry> scheduling;

  std::size_t count() const { return devices.size() + (admission ? 1 : 0) + scheduling.size(); }
};

enum class AllocateAt { bind, filter };

// The HAMi node lock (scheduler.nodeLock).
struct NodeLockConfig {
  int timeout_seconds = 300;  // HAMi --node-lock-timeout (5m): age after which a lock expires
  // HAMi --node-lock-retry-timeout (28s): how long a PodGroup member's bind
  // keeps retrying a contended lock, every 100 ms; 0 disables the retry.
  int pod_group_retry_timeout_seconds = 28;
};

struct SchedulerConfig {
  std::string name = "hami-scheduler";
  // scheduler.nodePolicy / gpuPolicy. Empty (not set): the default the
  // scheduling plugins declare (hami/scheduling.h), binpack and spread for
  // hami-policies, HAMi's defaults.
  std::string node_policy;
  std::string gpu_policy;
  AllocateAt allocate_at = AllocateAt::bind;
  NodeLockConfig node_lock;
};

enum class ClusterSource { file, kubernetes };

enum class EventsApi { events_v1, core_v1 };  // events.k8s.io/v1 | v1

// How to reach the API server (cluster.kubernetes).
struct KubernetesConfig {
  // Explicit kubeconfig; empty: automatic (in-cluster, $KUBECONFIG,
  // ~/.kube/config — kube::resolve_api_config).
  std::filesystem::path kubeconfig;
  // Client-side token bucket; 0 disables it. The API server's priority and
  // fairness is what protects it (docs/performance.md, "The real
  // kube-scheduler"); at 20/40 the bucket, not the server, paced binds.
  double qps = 200.0;
  int burst = 400;
  int request_timeout_seconds = 30;
  EventsApi events = EventsApi::events_v1;
};

// none: always leader (HAMi without --leader-elect). follow: HAMi's passive
// mode — leader while the co-located kube-scheduler holds the Lease under
// our identity. elect: this process runs its own Lease election.
enum class LeaderMode { none, follow, elect };

struct LeaderElectionConfig {
  LeaderMode mode = LeaderMode::none;
  std::string lease_namespace = "kube-system";
  std::string lease_name = "kube-scheduler";
  // Empty: $POD_NAME when set, else the host name (resolved at start).
  std::string identity;
  int lease_duration_seconds = 15;
  int renew_deadline_seconds = 10;
  int retry_period_seconds = 2;
  // HAMi's role labels (reference §1.8): on every registration pass the
  // leader labels the pods matching role_selector in $POD_NAMESPACE — its
  // own pod ($POD_NAME, else the host name) role_label=leader, the others
  // role_label=follower. An empty role_label writes no labels.
  std::string role_label = "hami.io/scheduler-role";
  std::string role_selector = "app.kubernetes.io/component=hami-scheduler";
};

struct ClusterConfig {
  ClusterSource source = ClusterSource::file;
  std::filesystem::path file;  // snapshot for source=file; empty: an empty cluster
  KubernetesConfig kubernetes;
  LeaderElectionConfig leader_election;  // used with source=kubernetes only
};

struct MetricsConfig {
  // A separate plain-HTTP listener for GET /metrics (HAMi's
  // --metrics-bind-address); nullopt: none. An empty host (":9395") binds
  // every IPv4 address. /metrics is always served on the webhook listener too.
  std::optional<ListenAddress> listen;
  bool legacy = false;  // HAMi's --legacy-metrics: also the old names
};

struct LogConfig {
  log::Level level = log::Level::info;
  log::Format format = log::Format::text;
};

struct HostConfig {
  std::filesystem::path source;  // the config file as named by the user; empty: none
  ListenAddress listen;          // the webhook listener
  TlsConfig tls;                 // the webhook listener's
  ExtenderListenerConfig extender;
  ServerConfig server;
  PluginsConfig plugins;
  SchedulerConfig scheduler;
  ClusterConfig cluster;
  MetricsConfig metrics;
  LogConfig log;

  // The TLS settings the extender listener serves with.
  const TlsConfig& extender_tls() const { return extender.tls ? *extender.tls : tls; }

  // How messages name this configuration: the file, or "built-in
  // defaults" when none was given (config/builtin_config.hpp).
  std::string name() const { return source.empty() ? "built-in defaults" : source.string(); }
};

}  // namespace hami::config
