#include "mig_number_text.hpp"

#include <charconv>
#include <limits>

namespace hami::devices::nvidia {
namespace {

std::optional<std::int64_t> parse(std::string_view field, bool allow_sign) {
  const bool negative = allow_sign && !field.empty() && field.front() == '-';
  const std::string_view digits = negative ? field.substr(1) : field;
  if (digits.empty() || digits.size() > 10 || (digits.size() > 1 && digits.front() == '0'))
    return std::nullopt;
  for (const char c : digits) {
    if (c < '0' || c > '9')
      return std::nullopt;  // from_chars would take a sign
  }
  if (negative && digits == "0")
    return std::nullopt;
  std::int64_t v = 0;
  const char* end = digits.data() + digits.size();
  const auto [ptr, ec] = std::from_chars(digits.data(), end, v);
  if (ec != std::errc() || ptr != end)
    return std::nullopt;
  return negative ? -v : v;
}

template <class T>
std::optional<T> in_range(std::optional<std::int64_t> v) {
  if (!v || *v < std::numeric_limits<T>::min() || *v > std::numeric_limits<T>::max())
    return std::nullopt;
  return static_cast<T>(*v);
}

template <class T>
std::optional<T> take(std::string_view& text, char stop, bool allow_sign) {
  const std::size_t end = text.find(stop);
  if (end == std::string_view::npos)
    return std::nullopt;
  const auto v = in_range<T>(parse(text.substr(0, end), allow_sign));
  if (v)
    text.remove_prefix(end + 1);
  return v;
}

}  // namespace

std::optional<std::uint32_t> parse_u32(std::string_view field) {
  return in_range<std::uint32_t>(parse(field, false));
}

std::optional<std::int32_t> parse_i32(std::string_view field) {
  return in_range<std::int32_t>(parse(field, true));
}

std::optional<std::uint32_t> take_u32(std::string_view& text, char stop) {
  return take<std::uint32_t>(text, stop, false);
}

std::optional<std::int32_t> take_i32(std::string_view& text, char stop) {
  return take<std::int32_t>(text, stop, true);
}

}  // namespace hami::devices::nvidia
