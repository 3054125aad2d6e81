#include "nvidia_requests.hpp"

#include <string>

#include "request_values.hpp"

namespace hami::devices::nvidia {
Request container_request(const NvidiaConfig& config, const ContainerRef& c) {
  Request r;
  const auto count_text = c.resource(config.count_resource);
  if (!count_text)
    return r;
  const auto count = quantity_integer(*count_text);
  if (!count || *count < 0 || *count > kInt32Max) {
    throw unusable_value(config.count_resource, *count_text, c,
                         "must be an integer between 0 and 2147483647");
  }
  if (*count == 0)
    return r;

  std::int64_t memory = 0;
  if (const auto mem_text = c.resource(config.memory_resource)) {
    const auto v = quantity_integer(*mem_text);
    const std::int64_t limit = kInt32Max / config.memory_factor;
    if (!v || *v < 0 || *v > limit) {
      throw unusable_value(
          config.memory_resource, *mem_text, c,
          "must be an integer number of MiB between 0 and " + std::to_string(limit));
    }
    memory = *v * config.memory_factor;
  }

  std::int32_t percent = 0;
  if (const auto pct_text = c.resource(config.memory_percent_resource)) {
    if (const auto v = quantity_integer(*pct_text); v && *v > 0) {
      percent = *v > 100 ? 100 : static_cast<std::int32_t>(*v);
    }
  }
  if (percent == 0 && memory == 0) {
    if (config.default_memory != 0) {
      memory = config.default_memory;
    } else {
      percent = 100;
    }
  }

  std::int32_t cores = config.default_cores;
  if (const auto cores_text = c.resource(config.cores_resource)) {
    if (const auto v = quantity_integer(*cores_text)) {
      if (*v < 0)
        throw unusable_value(config.cores_resource, *cores_text, c, "must not be negative");
      cores = *v > kInt32Max ? static_cast<std::int32_t>(kInt32Max) : static_cast<std::int32_t>(*v);
    }
  }

  r.count = static_cast<std::int32_t>(*count);
  r.memory_mib = memory;
  r.memory_percent = percent;
  r.cores = cores;
  return r;
}

}  // namespace hami::devices::nvidia
