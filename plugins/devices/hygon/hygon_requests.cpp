#include "hygon_requests.hpp"

#include <string>

#include "request_values.hpp"

namespace hami::devices::hygon {
bool uses_dcu(const HygonConfig& config, const ContainerRef& c) {
  return c.limits.contains(config.count_resource);
}

Request container_request(const HygonConfig& config, const ContainerRef& c) {
  Request r;
  const std::int32_t count = devices::requested_count(config.count_resource, c);
  if (count == 0)
    return r;  // no DCU, nothing to report
  std::int64_t memory = 0;
  if (const auto text = c.resource(config.memory_resource)) {
    memory = bounded_value(config.memory_resource, *text, c, kInt32Max,
                           "must be an integer number of MiB between 0 and 2147483647");
    if (config.memory_factor > 1) {
      memory *= config.memory_factor;
      if (memory > kInt32Max) {
        throw unusable_value(config.memory_resource, *text, c,
                             "times memoryFactor " + std::to_string(config.memory_factor) +
                                 " exceeds 2147483647 MiB");
      }
    }
  }
  const std::int32_t cores = requested_cores(config.cores_resource, c, 100);
  r.count = count;
  r.memory_mib = memory;
  r.memory_percent = memory == 0 ? 100 : 0;
  r.cores = cores;
  return r;
}

}  // namespace hami::devices::hygon
