#include "request_values.hpp"

#include <string>

#include "hami/quantity.hpp"

namespace hami::devices {

std::optional<std::int64_t> quantity_integer(std::string_view text) {
  const auto q = Quantity::parse(text);
  return q ? q->as_int64() : std::nullopt;
}

InvalidInput unusable_value(std::string_view resource, std::string_view value,
                            const ContainerRef& container, std::string_view rule) {
  return InvalidInput("invalid " + std::string(resource) + " value " + std::string(value) +
                      " in container " + std::string(container.name) + ": " + std::string(rule));
}

}  // namespace hami::devices
