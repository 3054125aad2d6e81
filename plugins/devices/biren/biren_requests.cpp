#include "biren_requests.hpp"

#include "request_values.hpp"

namespace hami::devices::biren {

bool uses_biren(const BirenConfig& config, const ContainerRef& c) {
  return c.limits.contains(config.count_resource);
}

std::int32_t requested_count(const BirenConfig& config, const ContainerRef& c) {
  const auto text = c.resource(config.count_resource);
  if (!text)
    return 0;
  const auto v = quantity_integer(*text);
  if (v && *v == 0)
    return 0;
  if (!v || *v < 0 || *v > kInt32Max) {
    throw unusable_value(config.count_resource, *text, c,
                         "must be an integer between 1 and 2147483647");
  }
  return static_cast<std::int32_t>(*v);
}

}  // namespace hami::devices::biren
