#include "nvidia_requests.hpp"

#include <optional>
#include <string>

#include "request_values.hpp"

namespace hami::devices::nvidia {
namespace {

// The count resource: nullopt when absent, else 0..INT32_MAX.
std::optional<std::int64_t> count_value(const NvidiaConfig& config, const ContainerRef& c) {
  const auto text = c.resource(config.count_resource);
  if (!text)
    return std::nullopt;
  const auto count = quantity_integer(*text);
  if (!count || *count < 0 || *count > kInt32Max) {
    throw unusable_value(config.count_resource, *text, c,
                         "must be an integer between 0 and 2147483647");
  }
  return count;
}

// The memory resource in MiB after memoryFactor: 0 when absent.
std::int64_t memory_value(const NvidiaConfig& config, const ContainerRef& c) {
  const auto text = c.resource(config.memory_resource);
  if (!text)
    return 0;
  const auto v = quantity_integer(*text);
  const std::int64_t limit = kInt32Max / config.memory_factor;
  if (!v || *v < 0 || *v > limit) {
    throw unusable_value(config.memory_resource, *text, c,
                         "must be an integer number of MiB between 0 and " + std::to_string(limit));
  }
  return *v * config.memory_factor;
}

// The cores resource: `config.default_cores` when absent or not an integer.
std::int32_t cores_value(const NvidiaConfig& config, const ContainerRef& c) {
  const auto text = c.resource(config.cores_resource);
  if (!text)
    return config.default_cores;
  const auto v = quantity_integer(*text);
  if (!v)
    return config.default_cores;
  if (*v < 0)
    throw unusable_value(config.cores_resource, *text, c, "must not be negative");
  return *v > kInt32Max ? static_cast<std::int32_t>(kInt32Max) : static_cast<std::int32_t>(*v);
}

}  // namespace

void check_request_values(const NvidiaConfig& config, const ContainerRef& c) {
  count_value(config, c);
  memory_value(config, c);
  cores_value(config, c);
}

Request container_request(const NvidiaConfig& config, const ContainerRef& c) {
  Request r;
  const auto count = count_value(config, c);
  if (!count || *count == 0)
    return r;

  std::int64_t memory = memory_value(config, c);

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

  r.count = static_cast<std::int32_t>(*count);
  r.memory_mib = memory;
  r.memory_percent = percent;
  r.cores = cores_value(config, c);
  return r;
}

}  // namespace hami::devices::nvidia
