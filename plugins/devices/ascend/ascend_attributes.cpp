#include "ascend_attributes.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>

#include "errors.hpp"

namespace hami::devices::ascend {
namespace {
constexpr std::string_view kPrefix = "NetworkID=";
}

std::string encode_attributes(std::optional<double> network_id) {
  if (!network_id)
    return {};
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, *network_id);
  std::string out(kPrefix);
  out.append(buf, r.ptr);
  return out;
}

std::optional<double> decode_network_id(std::string_view attributes) {
  if (attributes.empty())
    return std::nullopt;
  if (!attributes.starts_with(kPrefix))
    throw InvalidInput("ascend attributes: expected NetworkID=<number>");
  const std::string_view number = attributes.substr(kPrefix.size());
  double value = 0;
  const char* end = number.data() + number.size();
  const auto r = std::from_chars(number.data(), end, value);
  if (number.empty() || r.ec != std::errc() || r.ptr != end || !std::isfinite(value))
    throw InvalidInput("ascend attributes: NetworkID is not a finite number");
  return value;
}

std::int64_t network_group(double network_id) noexcept {
  constexpr double kMax = 9223372036854775807.0;
  if (std::isnan(network_id))
    return 0;
  if (network_id >= kMax)
    return std::numeric_limits<std::int64_t>::max();
  if (network_id <= -kMax)
    return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(network_id);
}

}  // namespace hami::devices::ascend
