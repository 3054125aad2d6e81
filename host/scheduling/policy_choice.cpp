#include "scheduling/policy_choice.hpp"

#include <optional>

namespace hami::scheduling {

namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos)
    return {};
  const auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

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
    : plugins_(plugins), node_policy_(trim(node_policy)), device_policy_(trim(device_policy)) {}

const host::SchedulingPluginHandle* PolicyCatalog::plugin_for(std::string_view text,
                                                              bool node) const {
  const std::string_view first = host::first_policy_word(text);
  if (first.empty())
    return nullptr;
  for (const host::SchedulingPluginHandle& p : plugins_) {
    if (p.declares(first, node))
      return &p;
  }
  return nullptr;
}

bool PolicyCatalog::usable(std::string_view text, bool node) const {
  text = trim(text);
  if (text.empty())
    return false;
  if (node)
    return text.find(',') == std::string_view::npos && plugin_for(text, true) != nullptr;
  // Every word of a device chain must be declared by some plugin.
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string_view::npos)
      end = text.size();
    const std::string_view word = trim(text.substr(start, end - start));
    if (word.empty())
      return false;
    bool declared = false;
    for (const host::SchedulingPluginHandle& p : plugins_) {
      if (p.declares(word, false)) {
        declared = true;
        break;
      }
    }
    if (!declared)
      return false;
    start = end + 1;
  }
  return true;
}

PolicyChoice PolicyCatalog::choose(const hami_pod_view& pod, std::string_view key,
                                   const std::string& configured, bool node) const {
  if (const auto value = annotation(pod, key); value && usable(*value, node)) {
    const std::string_view text = trim(*value);
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
