#include "ascend_admission.hpp"

#include <cstdint>
#include <string>

#include "ascend_names.hpp"
#include "errors.hpp"
#include "hami/quantity.hpp"

namespace hami::devices::ascend {
namespace {

// Go's Quantity.Value(): rounded up to an integer; nullopt when unusable.
std::optional<std::int64_t> ceil_value(std::string_view text) {
  const auto q = Quantity::parse(text);
  return q ? q->ceil_int64() : std::nullopt;
}

bool names_ascend_resource(const AscendConfig& config,
                           std::span<const std::string_view> limit_names) noexcept {
  for (const std::string_view name : limit_names) {
    if (name.starts_with(kChartResourcePrefix) || name == config.count_resource)
      return true;
  }
  return false;
}

// Step 5: the memory the container gets, and the error text when none fits.
std::int64_t trimmed_memory(const AscendConfig& config, std::int64_t asked, bool soft) {
  if (soft)
    return asked;
  if (const VnpuTemplate* t = template_for(config, asked))
    return t->memory_mib;
  if (asked <= config.memory_capacity)
    return config.memory_allocatable;
  throw InvalidInput(config.memory_resource + " " + std::to_string(asked) + " is invalid");
}

}  // namespace

bool soft_split(const KvList& pod_annotations) noexcept {
  const auto mode = pod_annotations.find(kVnpuModeAnnotation);
  return mode && *mode == kHamiCore;
}

AscendMutation mutate_container(const AscendConfig& config, const ContainerRef& c,
                                const KvList& pod_annotations,
                                std::span<const std::string_view> limit_names) {
  AscendMutation m;
  const auto count_text = c.limits.find(config.count_resource);
  if (!count_text) {
    if (config.overwrite_env && !names_ascend_resource(config, limit_names) &&
        !c.env.contains(kVisibleDevicesEnv)) {
      m.env.emplace_back(std::string(kVisibleDevicesEnv), std::string());
    }
    return m;
  }
  const auto count_value = ceil_value(*count_text);
  if (!count_value) {
    throw InvalidInput("invalid " + config.count_resource + " value " + std::string(*count_text) +
                       " in container " + std::string(c.name));
  }
  const std::int64_t count = *count_value;
  if (config.module_pairs() && config.super_pod) {
    if (count == 1) {
      m.limits.emplace_back(config.count_resource, "2");
      if (c.requests.contains(config.count_resource))
        m.requests.emplace_back(config.count_resource, "2");
    } else if (count % 2 != 0) {
      throw InvalidInput("Ascend910C device request must be 1 or 2*n, got " +
                         std::to_string(count));
    }
  }
  const bool soft = soft_split(pod_annotations);
  if (!soft && !config.cores_resource.empty()) {
    if (const auto core_text = c.resource(config.cores_resource)) {
      const auto core = ceil_value(*core_text);
      if (core && *core > 0) {
        throw InvalidInput(config.cores_resource +
                           " is only supported in hami-core (soft split) mode");
      }
    }
  }
  std::int64_t memory = config.memory_allocatable;
  if (const auto mem_text = c.limits.find(config.memory_resource)) {
    const auto asked = ceil_value(*mem_text);
    if (!asked) {
      throw InvalidInput(config.memory_resource + " " + std::string(*mem_text) + " is invalid");
    }
    memory = trimmed_memory(config, *asked, soft);
  }
  if (count > 1 && !soft && memory != config.memory_allocatable)
    throw InvalidInput("vNPU not supported for multiple devices");
  if (!config.memory_resource.empty()) {
    m.limits.emplace_back(config.memory_resource, std::to_string(memory));
    m.requests.emplace_back(config.memory_resource, std::to_string(memory));
  }
  if (!config.runtime_class.empty())
    m.runtime_class = config.runtime_class;
  m.uses_device = true;
  return m;
}

}  // namespace hami::devices::ascend
