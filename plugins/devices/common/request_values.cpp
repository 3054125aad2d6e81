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

std::int32_t requested_count(std::string_view resource, const ContainerRef& container) {
  const auto text = container.resource(resource);
  if (!text)
    return 0;
  const auto v = quantity_integer(*text);
  if (v && *v == 0)
    return 0;
  if (!v || *v < 0 || *v > kInt32Max)
    throw unusable_value(resource, *text, container, "must be an integer between 1 and 2147483647");
  return static_cast<std::int32_t>(*v);
}

std::int64_t bounded_value(std::string_view resource, std::string_view text,
                           const ContainerRef& container, std::int64_t max, std::string_view rule) {
  const auto v = quantity_integer(text);
  if (!v || *v < 0 || *v > max)
    throw unusable_value(resource, text, container, rule);
  return *v;
}

std::int32_t requested_cores(std::string_view resource, const ContainerRef& container,
                             std::int32_t absent) {
  const auto text = container.resource(resource);
  if (!text)
    return absent;
  return static_cast<std::int32_t>(
      bounded_value(resource, *text, container, kInt32Max,
                    "must be an integer percentage between 0 and 2147483647"));
}

std::int64_t requested_unit_memory(std::string_view resource, const ContainerRef& container,
                                   std::int64_t unit_mib) {
  const auto text = container.resource(resource);
  if (!text)
    return 0;
  const std::int64_t max_units = kInt32Max / unit_mib;
  return bounded_value(resource, *text, container, max_units,
                       "must be an integer number of " + std::to_string(unit_mib) +
                           " MiB units between 0 and " + std::to_string(max_units)) *
         unit_mib;
}

}  // namespace hami::devices
