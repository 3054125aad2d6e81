#include "text.hpp"

namespace hami::devices {

std::string_view trim(std::string_view s) noexcept {
  constexpr std::string_view kSpace = " \t\n\r\f\v";
  const std::size_t first = s.find_first_not_of(kSpace);
  if (first == std::string_view::npos)
    return {};
  const std::size_t last = s.find_last_not_of(kSpace);
  return s.substr(first, last - first + 1);
}

bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size())
    return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (ascii_lower(a[i]) != ascii_lower(b[i]))
      return false;
  }
  return true;
}

bool icontains(std::string_view haystack, std::string_view needle) noexcept {
  if (needle.empty())
    return true;
  if (needle.size() > haystack.size())
    return false;
  for (std::size_t i = 0; i + needle.size() <= haystack.size(); ++i) {
    if (iequals(haystack.substr(i, needle.size()), needle))
      return true;
  }
  return false;
}

}  // namespace hami::devices
