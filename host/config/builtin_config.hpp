// The configuration without a config file: what `hami-scheduler` runs
// with when no --config is given, e.g. in HAMi's Helm chart, whose
// scheduler container passes HAMi's flags only. The defaults of every key
// are those of a config file (config/example.yaml), except where HAMi's
// command line needs another to work at all:
//
//   tls.selfSigned: true         until --cert_file/--key_file name files
//   plugins.directory            kDefaultPluginDirectory, where the .deb
//                                and the container image install them
//   plugins: devices nvidia (nvidia.so), amd (amd.so); admission vgpu
//            (vgpu.so); scheduling hami-policies (hami-policies.so)
//   cluster.source: kubernetes   HAMi always reads the API server;
//   cluster.kubernetes.kubeconfig  $KUBECONFIG (its first file) when set:
//                                HAMi reads it before the in-cluster
//                                config, and so does this default
//   cluster.kubernetes.events: v1  core Events, as HAMi writes them (its
//                                chart's ClusterRole grants no
//                                events.k8s.io)
//   scheduler.allocateAt: filter HAMi's chart configures kube-scheduler
//                                with filter and bind verbs and no
//                                prioritize verb: filter picks the node by
//                                the node policy, as HAMi does
//
// config.source is empty (HostConfig::name() says "built-in defaults").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/host_config.hpp"

namespace hami::config {

// packaging/CMakeLists.txt's HAMI_PLUGIN_INSTALL_DIR.
inline constexpr std::string_view kDefaultPluginDirectory = "/usr/lib/hami-scheduler/plugins";

// `kubeconfig_env`: the value of $KUBECONFIG, nullopt when unset.
HostConfig builtin_config(const std::optional<std::string>& kubeconfig_env);

// For help texts, the names of the built-in configuration's plugins:
// its device plugins joined by ", ", and all of them (devices, admission,
// scheduling) joined by ", " with " and " before the last.
std::string builtin_device_plugin_names();
std::string builtin_plugin_names();

}  // namespace hami::config
