#include "iluvatar_requests.hpp"

#include <string>

#include "request_values.hpp"

namespace hami::devices::iluvatar {
Request container_request(const IluvatarConfig& config, const ContainerRef& c) {
  Request r;
  const auto count_text = c.resource(config.count_resource);
  if (!count_text)
    return r;
  const auto count = quantity_integer(*count_text);
  if (count && *count == 0)
    return r;
  if (!count || *count < 0 || *count > kInt32Max) {
    throw unusable_value(config.count_resource, *count_text, c,
                         "must be an integer between 1 and 2147483647");
  }
  std::int64_t memory = 0;
  if (const auto text = c.resource(config.memory_resource)) {
    const auto v = quantity_integer(*text);
    if (!v || *v < 0 || *v > kInt32Max / kMemoryFactor) {
      throw unusable_value(config.memory_resource, *text, c,
                           "must be an integer number of 256 MiB units between 0 and 8388607");
    }
    memory = *v * kMemoryFactor;
  }
  std::int32_t cores = 0;
  if (const auto text = c.resource(config.cores_resource)) {
    const auto v = quantity_integer(*text);
    if (!v || *v < 0 || *v > kInt32Max) {
      throw unusable_value(config.cores_resource, *text, c,
                           "must be an integer percentage between 0 and 2147483647");
    }
    cores = static_cast<std::int32_t>(*v);
  }
  r.count = static_cast<std::int32_t>(*count);
  r.memory_mib = memory;
  r.memory_percent = memory == 0 ? 100 : 0;
  r.cores = cores;
  return r;
}

}  // namespace hami::devices::iluvatar
