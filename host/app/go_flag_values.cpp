#include "app/go_flag_values.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace hami::app {
namespace {

constexpr uint64_t kMaxMagnitude = uint64_t{1} << 63;  // |int64 min|

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Go's unitMap, in nanoseconds; µ is U+00B5 (micro sign), μ U+03BC (mu).
constexpr std::array<std::pair<std::string_view, uint64_t>, 8> kUnits{{
    {"ns", 1},
    {"us", 1'000},
    {"\xc2\xb5s", 1'000},
    {"\xce\xbcs", 1'000},
    {"ms", 1'000'000},
    {"s", 1'000'000'000},
    {"m", 60'000'000'000},
    {"h", 3'600'000'000'000},
}};

std::optional<uint64_t> unit_of(std::string_view unit) {
  for (const auto& [name, nanos] : kUnits) {
    if (name == unit)
      return nanos;
  }
  return std::nullopt;
}

// from_chars takes a leading '-' but not '+', which Go allows.
std::string_view without_plus(std::string_view text) {
  if (!text.empty() && text.front() == '+')
    text.remove_prefix(1);
  return text;
}

}  // namespace

std::optional<bool> parse_go_bool(std::string_view text) {
  for (const std::string_view yes : {"1", "t", "T", "TRUE", "true", "True"}) {
    if (text == yes)
      return true;
  }
  for (const std::string_view no : {"0", "f", "F", "FALSE", "false", "False"}) {
    if (text == no)
      return false;
  }
  return std::nullopt;
}

// Follows time.ParseDuration step by step, overflow checks included.
std::optional<std::chrono::nanoseconds> parse_go_duration(std::string_view text) {
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s == "0")
    return std::chrono::nanoseconds(0);
  if (s.empty())
    return std::nullopt;
  uint64_t total = 0;
  while (!s.empty()) {
    if (!(s.front() == '.' || is_digit(s.front())))
      return std::nullopt;
    // The integer part.
    uint64_t whole = 0;
    size_t i = 0;
    for (; i < s.size() && is_digit(s[i]); ++i) {
      if (whole > (kMaxMagnitude - 1) / 10)
        return std::nullopt;
      whole = whole * 10 + static_cast<uint64_t>(s[i] - '0');
      if (whole > kMaxMagnitude)
        return std::nullopt;
    }
    const bool has_whole = i > 0;
    s.remove_prefix(i);
    // The fraction: digits kept while they fit, the rest only consumed.
    uint64_t fraction = 0;
    double scale = 1;
    bool has_fraction = false;
    if (!s.empty() && s.front() == '.') {
      s.remove_prefix(1);
      bool overflow = false;
      size_t j = 0;
      for (; j < s.size() && is_digit(s[j]); ++j) {
        if (overflow)
          continue;
        if (fraction > (kMaxMagnitude - 1) / 10) {
          overflow = true;
          continue;
        }
        const uint64_t next = fraction * 10 + static_cast<uint64_t>(s[j] - '0');
        if (next > kMaxMagnitude) {
          overflow = true;
          continue;
        }
        fraction = next;
        scale *= 10;
      }
      has_fraction = j > 0;
      s.remove_prefix(j);
    }
    if (!has_whole && !has_fraction)
      return std::nullopt;  // "." or ".s"
    size_t unit_end = 0;
    while (unit_end < s.size() && s[unit_end] != '.' && !is_digit(s[unit_end]))
      ++unit_end;
    if (unit_end == 0)
      return std::nullopt;  // a number without its unit
    const auto unit = unit_of(s.substr(0, unit_end));
    if (!unit)
      return std::nullopt;
    s.remove_prefix(unit_end);
    if (whole > kMaxMagnitude / *unit)
      return std::nullopt;
    uint64_t value = whole * *unit;
    if (fraction > 0) {
      value += static_cast<uint64_t>(static_cast<double>(fraction) *
                                     (static_cast<double>(*unit) / scale));
      if (value > kMaxMagnitude)
        return std::nullopt;
    }
    total += value;
    if (total > kMaxMagnitude)
      return std::nullopt;
  }
  if (negative)
    return std::chrono::nanoseconds(total == kMaxMagnitude ? std::numeric_limits<int64_t>::min()
                                                           : -static_cast<int64_t>(total));
  if (total > kMaxMagnitude - 1)
    return std::nullopt;
  return std::chrono::nanoseconds(static_cast<int64_t>(total));
}

std::optional<int64_t> parse_go_int(std::string_view text) {
  const std::string_view digits = without_plus(text);
  if (digits.empty() || (digits.size() < text.size() && digits.front() == '-'))
    return std::nullopt;
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc{} || end != digits.data() + digits.size())
    return std::nullopt;
  return value;
}

std::optional<double> parse_go_float(std::string_view text) {
  const std::string_view digits = without_plus(text);
  if (digits.empty() || (digits.size() < text.size() && digits.front() == '-'))
    return std::nullopt;
  double value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value,
                                         std::chars_format::general);
  if (ec != std::errc{} || end != digits.data() + digits.size() || !std::isfinite(value))
    return std::nullopt;
  return value;
}

}  // namespace hami::app
