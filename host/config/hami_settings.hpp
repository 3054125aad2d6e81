// HAMi's scheduler command line (reference hami-v2.10 §1.2, and main's
// --extender-bind) mapped
// onto this host's configuration. app/hami_flags.hpp reads the flags from
// argv into HamiSettings (syntax, types, policy names); apply_hami_settings
// sets the config keys they stand for, over the config file or the
// built-in defaults and under this host's own options (--listen,
// --plugin-dir, --cluster, applied after).
//
//   --http_bind ADDR:PORT      listen; the extender verbs follow onto the
//                              same port on loopback, where HAMi's
//                              kube-scheduler config calls them
//                              (https://127.0.0.1:PORT):
//                                loopback ADDR   one socket serves both;
//                                0.0.0.0 / :PORT one socket, the extender
//                                                verbs answered only on
//                                                connections made to a
//                                                loopback address;
//                                other ADDR      the extender listener
//                                                stays where it is (notice)
//   --extender-bind ADDR:PORT  extender.listen (HAMi after v2.10: the
//                              extender verbs' own address); one socket
//                              with --http_bind's when the two are equal
//   --cert_file, --key_file    tls.certFile, tls.keyFile (both or neither)
//   --scheduler-name           scheduler.name (empty: notice, unchanged)
//   --node-/--gpu-scheduler-policy  scheduler.nodePolicy / gpuPolicy
//   --metrics-bind-address     metrics.listen ("" : none)
//   --kube-qps/-burst/-timeout cluster.kubernetes.qps/burst/
//                              requestTimeoutSeconds, with client-go's
//                              meaning of 0 (qps 5, burst 10; timeout 0 =
//                              none, which is not offered: notice)
//   --node-lock-timeout        scheduler.nodeLock.timeoutSeconds
//   --node-lock-retry-timeout  scheduler.nodeLock.podGroupRetryTimeoutSeconds
//                              (durations rounded up to whole seconds)
//   --force-overwrite-default-scheduler  the admission plugin's config key
//                              forceOverwriteDefaultScheduler
//   --leader-elect             cluster.leaderElection.mode follow (true) or
//                              none (false); needs cluster.source kubernetes
//   --leader-elect-resource-name/-namespace  leaseName / leaseNamespace
//   --legacy-metrics           metrics.legacyMetrics
//   --device-config-file       plugins.deviceConfigFile (the device plugins'
//                              sections are read again from it)
//   -v N (klog)                log.level: debug from 5 (HAMi's per-request
//                              lines are V(5)), else info
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "config/host_config.hpp"

namespace hami::config {

struct HamiSettings {
  std::optional<std::string> http_bind;
  std::optional<std::string> extender_bind;
  std::optional<std::string> cert_file;  // relative to the working directory
  std::optional<std::string> key_file;
  std::optional<std::string> scheduler_name;
  std::optional<std::string> node_policy;  // binpack | spread (checked by the reader)
  std::optional<std::string> gpu_policy;   // HAMi's names, or a comma list of them
  std::optional<std::string> metrics_bind_address;
  std::optional<double> kube_qps;
  std::optional<int64_t> kube_burst;
  std::optional<int64_t> kube_timeout_seconds;
  std::optional<std::chrono::nanoseconds> node_lock_timeout;
  std::optional<std::chrono::nanoseconds> node_lock_retry_timeout;
  std::optional<bool> force_overwrite_default_scheduler;
  std::optional<bool> leader_elect;
  std::optional<std::string> leader_elect_resource_name;
  std::optional<std::string> leader_elect_resource_namespace;
  std::optional<bool> legacy_metrics;
  std::optional<std::string> device_config_file;  // relative to the working directory
  std::optional<int64_t> klog_verbosity;
};

// A HAMi flag this host accepts without doing what HAMi does with it.
struct FlagNotice {
  std::string flag;     // as HAMi spells it: "--debug", "-v"
  std::string reason;   // what happens instead, and why
  bool ignored = true;  // false: applied, but differently (the reason says how)
};

// Sets the keys of `settings` in `config` and checks them as the file's
// keys are checked; returns the notices, in the order of the list above.
// Throws ConfigError "<flag>: <what is wrong>", e.g.
//   --http_bind: expected ADDR:PORT (e.g. 0.0.0.0:443 or :443), got "443"
//   --leader-elect: needs cluster.source kubernetes (...)
std::vector<FlagNotice> apply_hami_settings(HostConfig& config, const HamiSettings& settings);

}  // namespace hami::config
