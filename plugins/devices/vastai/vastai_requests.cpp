#include "vastai_requests.hpp"

#include "request_values.hpp"

namespace hami::devices::vastai {

bool uses_vastai(const VastaiConfig& config, const ContainerRef& c) {
  return c.limits.contains(config.count_resource);
}

std::int32_t requested_count(const VastaiConfig& config, const ContainerRef& c) {
  return devices::requested_count(config.count_resource, c);
}

}  // namespace hami::devices::vastai
