#include "nvidia_requests.hpp"

#include <limits>
#include <string>

#include "errors.hpp"
#include "hami/quantity.hpp"

namespace hami::devices::nvidia {
namespace {

[[noreturn]] void unusable(const std::string& resource, std::string_view value,
                           const ContainerRef& c, const std::string& rule) {
  throw InvalidInput("invalid " + resource + " value " + std::string(value) + " in container " +
                     std::string(c.name) + ": " + rule);
}

}  // namespace

Request container_request(const NvidiaConfig& config, const ContainerRef& c) {
  constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();
  Request r;
  const auto count_text = c.resource(config.count_resource);
  if (!count_text)
    return r;
  const auto count_q = Quantity::parse(*count_text);
  const auto count = count_q ? count_q->as_int64() : std::nullopt;
  if (!count || *count < 0 || *count > kInt32Max) {
    unusable(config.count_resource, *count_text, c, "must be an integer between 0 and 2147483647");
  }
  if (*count == 0)
    return r;

  std::int64_t memory = 0;
  if (const auto mem_text = c.resource(config.memory_resource)) {
    const auto q = Quantity::parse(*mem_text);
    const auto v = q ? q->as_int64() : std::nullopt;
    const std::int64_t limit = kInt32Max / config.memory_factor;
    if (!v || *v < 0 || *v > limit) {
      unusable(config.memory_resource, *mem_text, c,
               "must be an integer number of MiB between 0 and " + std::to_string(limit));
    }
    memory = *v * config.memory_factor;
  }

  std::int32_t percent = 0;
  if (const auto pct_text = c.resource(config.memory_percent_resource)) {
    const auto q = Quantity::parse(*pct_text);
    if (const auto v = q ? q->as_int64() : std::nullopt; v && *v > 0) {
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
    const auto q = Quantity::parse(*cores_text);
    if (const auto v = q ? q->as_int64() : std::nullopt) {
      if (*v < 0)
        unusable(config.cores_resource, *cores_text, c, "must not be negative");
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
