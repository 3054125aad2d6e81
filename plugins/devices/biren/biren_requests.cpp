#include "biren_requests.hpp"

#include "request_values.hpp"

namespace hami::devices::biren {

bool uses_biren(const BirenConfig& config, const ContainerRef& c) {
  return c.limits.contains(config.count_resource);
}

std::int32_t requested_count(const BirenConfig& config, const ContainerRef& c) {
  return devices::requested_count(config.count_resource, c);
}

}  // namespace hami::devices::biren
