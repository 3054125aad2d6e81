#include "biren_requests.hpp"

#include <limits>
#include <string>

#include "errors.hpp"
#include "hami/quantity.hpp"

namespace hami::devices::biren {

bool uses_biren(const BirenConfig& config, const ContainerRef& c) {
  return c.limits.contains(config.count_resource);
}

std::int32_t requested_count(const BirenConfig& config, const ContainerRef& c) {
  const auto text = c.resource(config.count_resource);
  if (!text)
    return 0;
  const auto q = Quantity::parse(*text);
  const auto v = q ? q->as_int64() : std::nullopt;
  if (v && *v == 0)
    return 0;
  if (!v || *v < 0 || *v > std::numeric_limits<std::int32_t>::max()) {
    throw InvalidInput("invalid " + config.count_resource + " value " + std::string(*text) +
                       " in container " + std::string(c.name) +
                       ": must be an integer between 1 and 2147483647");
  }
  return static_cast<std::int32_t>(*v);
}

}  // namespace hami::devices::biren
