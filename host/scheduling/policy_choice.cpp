#include "scheduling/policy_choice.hpp"

#include <algorithm>
#include <optional>

#include "hami/policy_text.hpp"

namespace hami::scheduling {

namespace {

using hami::trim_policy_word;

std::optional<std::string_view> annotation(const hami_pod_view& pod, std::string_view key) {
  for (size_t i = 0; i < pod.annotations_len; ++i) {
    const hami_kv& kv = pod.annotations[i];
    if (std::string_view(kv.key.ptr, kv.key.len) == key) {
      return std::string_view(kv.value.ptr, kv.value.len);
    }
  }
  return std::nullopt;
}

}  // namespace

PolicyCatalog::PolicyCatalog(std::span<const host::SchedulingPluginHandle> plugins,
                             std::string node_policy, std::string device_policy)
    : plugins_(plugins),
      node_policy_(trim_policy_word(node_policy)),
      device_policy_(trim_policy_word(device_policy)) {
  if (node_policy_.empty())
    node_policy_ = host::default_policy(plugins_, true);
  if (device_policy_.empty())
    device_policy_ = host::default_policy(plugins_, false);
}

const host::SchedulingPluginHandle* PolicyCatalog::plugin_for(std::string_view text,
                                                              bool node) const {
  const std::string_view first = hami::first_policy_word(text);
  if (first.empty())
    return nullptr;
  for (const host::SchedulingPluginHandle& p : plugins_) {
    if (p.declares(first, node))
      return &p;
  }
  return nullptr;
}

bool PolicyCatalog::usable(std::string_view text, bool node) const {
  text = trim_policy_word(text);
  if (text.empty())
    return false;
  if (node)
    return text.find(',') == std::string_view::npos && plugin_for(text, true) != nullptr;
  // Every word of a device chain must be declared by some plugin.
  return for_each_policy_word(text, [&](std::string_view word) {
    return !word.empty() && std::any_of(plugins_.begin(), plugins_.end(),
                                        [&](const host::SchedulingPluginHandle& p) {
                                          return p.declares(word, false);
                                        });
  });
}

PolicyChoice PolicyCatalog::choose(const hami_pod_view& pod, std::string_view key,
                                   const std::string& configured, bool node) const {
  if (const auto value = annotation(pod, key); value && usable(*value, node)) {
    const std::string_view text = trim_policy_word(*value);
    return {std::string(text), plugin_for(text, node)};
  }
  return {configured, plugin_for(configured, node)};
}

PolicyChoice PolicyCatalog::node_policy(const hami_pod_view& pod) const {
  return choose(pod, kNodePolicyAnnotation, node_policy_, true);
}

PolicyChoice PolicyCatalog::device_policy(const hami_pod_view& pod) const {
  return choose(pod, kGpuPolicyAnnotation, device_policy_, false);
}

}  // namespace hami::scheduling
