#include "ascend_requests.hpp"

#include <string>

#include "hami/quantity.hpp"
#include "request_values.hpp"

namespace hami::devices::ascend {

Request container_request(const AscendConfig& config, const ContainerRef& c) {
  Request r;
  const std::int32_t count = devices::requested_count(config.count_resource, c);
  if (count == 0)
    return r;
  std::int64_t memory = 0;
  if (const auto text = c.resource(config.memory_resource)) {
    memory = bounded_value(config.memory_resource, *text, c, kInt32Max,
                           "must be an integer number of MiB between 0 and 2147483647");
    const std::int32_t factor = config.effective_memory_factor();
    if (factor > 1) {
      memory *= factor;
      if (memory > kInt32Max) {
        throw unusable_value(
            config.memory_resource, *text, c,
            "times memoryFactor " + std::to_string(factor) + " exceeds 2147483647 MiB");
      }
    }
  }
  std::int32_t cores = 0;
  if (const auto text = c.resource(config.cores_resource)) {
    // Go's Quantity.Value(): rounded up.
    const auto q = Quantity::parse(*text);
    const auto v = q ? q->ceil_int64() : std::nullopt;
    if (!v || *v < 0 || *v > kInt32Max) {
      throw unusable_value(config.cores_resource, *text, c,
                           "must be a percentage between 0 and 2147483647");
    }
    cores = static_cast<std::int32_t>(*v);
  }
  r.count = count;
  r.memory_mib = memory;
  r.memory_percent = memory == 0 ? 100 : 0;
  r.cores = cores;
  return r;
}

}  // namespace hami::devices::ascend
