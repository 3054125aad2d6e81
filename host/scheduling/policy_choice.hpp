// Which node policy and device policy a pod is scheduled with, and which
// scheduling plugin implements each. The host knows no policy by name: a
// policy text is usable when some plugin declares its first comma word, and
// for device policies when plugins declare every word of the chain.
//
// Per pod, the annotations hami.io/node-scheduler-policy and
// hami.io/gpu-scheduler-policy override the configured policies; an
// annotation naming no declared policy is ignored (HAMi logs a warning and
// keeps the configured policy).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "hami/objects.h"
#include "plugins/scheduling_plugin_handle.hpp"

namespace hami::scheduling {

inline constexpr std::string_view kNodePolicyAnnotation = "hami.io/node-scheduler-policy";
inline constexpr std::string_view kGpuPolicyAnnotation = "hami.io/gpu-scheduler-policy";

struct PolicyChoice {
  std::string text;                                      // trimmed policy text
  const host::SchedulingPluginHandle* plugin = nullptr;  // null: no plugin implements it
};

class PolicyCatalog {
 public:
  // `plugins` must outlive the catalog. An empty `node_policy`
  // (`device_policy`) means the plugins' default (host::default_policy).
  PolicyCatalog(std::span<const host::SchedulingPluginHandle> plugins, std::string node_policy,
                std::string device_policy);

  PolicyChoice node_policy(const hami_pod_view& pod) const;
  PolicyChoice device_policy(const hami_pod_view& pod) const;

  // Whether `text` is usable as a node (device) policy.
  bool usable(std::string_view text, bool node) const;

 private:
  const host::SchedulingPluginHandle* plugin_for(std::string_view text, bool node) const;
  PolicyChoice choose(const hami_pod_view& pod, std::string_view annotation,
                      const std::string& configured, bool node) const;

  std::span<const host::SchedulingPluginHandle> plugins_;
  std::string node_policy_;
  std::string device_policy_;
};

}  // namespace hami::scheduling
