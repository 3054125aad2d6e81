#include "iluvatar_requests.hpp"

#include <string>

#include "request_values.hpp"

namespace hami::devices::iluvatar {
Request container_request(const IluvatarConfig& config, const ContainerRef& c) {
  Request r;
  const std::int32_t count = devices::requested_count(config.count_resource, c);
  if (count == 0)
    return r;
  const std::int64_t memory = requested_unit_memory(config.memory_resource, c, kMemoryFactor);
  const std::int32_t cores = requested_cores(config.cores_resource, c, 0);
  r.count = count;
  r.memory_mib = memory;
  r.memory_percent = memory == 0 ? 100 : 0;
  r.cores = cores;
  return r;
}

}  // namespace hami::devices::iluvatar
