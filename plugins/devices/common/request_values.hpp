// Reading a container's resource values into a request: the integer form of
// a quantity and the error text of an unusable value, as the vendors word it.
#ifndef HAMI_DEVICES_COMMON_REQUEST_VALUES_HPP
#define HAMI_DEVICES_COMMON_REQUEST_VALUES_HPP

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

#include "container.hpp"
#include "errors.hpp"

namespace hami::devices {

inline constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

// The quantity `text` as a whole number (Go's Quantity.Value() where it is
// exact); nullopt when it does not parse or is not an integer.
std::optional<std::int64_t> quantity_integer(std::string_view text);

// "invalid <resource> value <value> in container <name>: <rule>".
InvalidInput unusable_value(std::string_view resource, std::string_view value,
                            const ContainerRef& container, std::string_view rule);

// The device count `resource` asks for (limits, else requests): 0 when it
// is absent or 0, else an integer 1..INT32_MAX; any other value is unusable
// ("must be an integer between 1 and 2147483647").
std::int32_t requested_count(std::string_view resource, const ContainerRef& container);

// `text`, the value of `resource`, as an integer 0..`max`; any other value
// is unusable with `rule` as the reason.
std::int64_t bounded_value(std::string_view resource, std::string_view text,
                           const ContainerRef& container, std::int64_t max, std::string_view rule);

// The cores `resource` asks for (limits, else requests): an integer
// percentage 0..INT32_MAX; `absent` when the container does not name it.
// Any other value is unusable.
std::int32_t requested_cores(std::string_view resource, const ContainerRef& container,
                             std::int32_t absent);

// The memory `resource` asks for in units of `unit_mib` MiB (limits, else
// requests; HAMi's vmemory resources), in MiB: 0 when absent, at most
// INT32_MAX / unit_mib units. Any other value is unusable.
std::int64_t requested_unit_memory(std::string_view resource, const ContainerRef& container,
                                   std::int64_t unit_mib);

}  // namespace hami::devices

#endif  // HAMI_DEVICES_COMMON_REQUEST_VALUES_HPP
