#include "amd_requests.hpp"

#include <string>

#include "request_values.hpp"

namespace hami::devices::amd {
std::int32_t checked_core_percent(const AmdConfig& config, std::string_view text) {
  const auto v = quantity_integer(text);
  if (!v || *v < 1 || *v > 100) {
    throw InvalidInput(config.cores_resource + " must be an integer percentage between 1 and 100");
  }
  return static_cast<std::int32_t>(*v);
}

Request container_request(const AmdConfig& config, const ContainerRef& c) {
  Request r;
  const auto count_text = c.limits.find(config.count_resource);
  const auto mem_text = c.limits.find(config.memory_resource);
  const auto cores_text = c.limits.find(config.cores_resource);
  std::int64_t count = 1;
  if (count_text) {
    count = bounded_value(config.count_resource, *count_text, c, kInt32Max,
                          "must be an integer between 0 and 2147483647");
    if (count == 0)
      return r;
  } else if (!mem_text && !cores_text) {
    return r;
  }
  std::int64_t memory = 0;
  if (mem_text) {
    memory = bounded_value(config.memory_resource, *mem_text, c, kInt32Max,
                           "must be an integer number of MiB between 0 and 2147483647");
  }
  std::int32_t cores = 100;
  if (cores_text)
    cores = checked_core_percent(config, *cores_text);
  r.count = static_cast<std::int32_t>(count);
  r.memory_mib = memory;
  r.cores = cores;
  return r;
}

}  // namespace hami::devices::amd
