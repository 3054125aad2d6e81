#include "cambricon_requests.hpp"

#include "cambricon_names.hpp"
#include "request_values.hpp"

namespace hami::devices::cambricon {

bool uses_mlu(const CambriconConfig& config, const ContainerRef& c) {
  return c.limits.contains(config.count_resource);
}

Request container_request(const CambriconConfig& config, const ContainerRef& c) {
  Request r;
  const std::int32_t count = devices::requested_count(config.count_resource, c);
  if (count == 0)
    return r;  // no MLU, nothing to report
  std::int64_t memory = 0;
  if (const auto text = c.resource(config.memory_resource)) {
    memory = bounded_value(config.memory_resource, *text, c, kInt32Max / kMemoryFactor,
                           "must be an integer number of 256 MiB units between 0 and 8388607") *
             kMemoryFactor;
  }
  std::int32_t cores = 100;
  if (const auto text = c.resource(config.cores_resource)) {
    cores = static_cast<std::int32_t>(
        bounded_value(config.cores_resource, *text, c, kInt32Max,
                      "must be an integer percentage between 0 and 2147483647"));
  }
  r.count = count;
  r.memory_mib = memory;
  r.memory_percent = memory == 0 ? 100 : 0;
  r.cores = cores;
  return r;
}

}  // namespace hami::devices::cambricon
