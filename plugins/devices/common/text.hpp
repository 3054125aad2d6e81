// Small string helpers shared by the vendor plugins. ASCII only: every
// string they compare (resource names, UUIDs, GPU model names, annotation
// keys) is ASCII by construction, and the Go code they mirror uses byte-wise
// or ASCII case folding.
#ifndef HAMI_DEVICES_COMMON_TEXT_HPP
#define HAMI_DEVICES_COMMON_TEXT_HPP

#include <cstddef>
#include <string_view>

#include "hami/plugin.h"
#include "hami/plugin.hpp"

namespace hami::devices {

inline hami_str hs(std::string_view s) noexcept {
  return hami_str{s.data(), s.size()};
}

constexpr char ascii_lower(char c) noexcept {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

// Strips ASCII whitespace (Go's strings.TrimSpace for ASCII input).
std::string_view trim(std::string_view s) noexcept;

bool iequals(std::string_view a, std::string_view b) noexcept;

// True when `needle` occurs in `haystack`, ignoring ASCII case. An empty
// needle occurs everywhere (as Go's strings.Contains).
bool icontains(std::string_view haystack, std::string_view needle) noexcept;

// Calls f(piece) for every `sep`-separated piece, empty pieces included
// (Go's strings.Split). Returns early when f returns false.
template <class F>
void for_each_piece(std::string_view text, char sep, F&& f) {
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(sep, start);
    const std::string_view piece =
        text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (!f(piece))
      return;
    if (end == std::string_view::npos)
      return;
    start = end + 1;
  }
}

}  // namespace hami::devices

#endif  // HAMI_DEVICES_COMMON_TEXT_HPP
