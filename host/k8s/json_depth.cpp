#include "k8s/json_depth.hpp"

#include <cstring>

#include "k8s/json_brackets.hpp"

namespace hami::k8s {

namespace {

// The position just past the string literal whose opening quote precedes
// `from`, or npos when it never ends. Bodies are mostly string bytes, so the
// closing quote is found with memchr rather than byte by byte; a quote is
// escaped when an odd number of backslashes precede it.
std::size_t skip_string(std::string_view text, std::size_t from) {
  const char* data = text.data();
  const std::size_t size = text.size();
  std::size_t at = from;
  while (at < size) {
    const void* hit = std::memchr(data + at, '"', size - at);
    if (hit == nullptr)
      return std::string_view::npos;
    const auto quote = static_cast<std::size_t>(static_cast<const char*>(hit) - data);
    std::size_t first_backslash = quote;
    while (first_backslash > at && data[first_backslash - 1] == '\\')
      --first_backslash;
    at = quote + 1;
    if ((quote - first_backslash) % 2 == 0)
      return at;
  }
  return std::string_view::npos;
}

}  // namespace

std::size_t json_nesting_depth(std::string_view text, std::size_t stop_after) {
  std::size_t depth = 0;
  std::size_t deepest = 0;
  std::size_t at = 0;
  while (at < text.size()) {
    switch (text[at]) {
      case '"':
        at = skip_string(text, at + 1);
        if (at == std::string_view::npos)
          return deepest;
        continue;
      case '[':
      case '{':
        if (++depth > deepest) {
          deepest = depth;
          if (deepest > stop_after)
            return deepest;
        }
        break;
      case ']':
      case '}':
        if (depth > 0)
          --depth;
        break;
      default:
        break;
    }
    ++at;
  }
  return deepest;
}

bool json_nests_deeper_than(std::string_view text, std::size_t limit) {
  if (k8s::json_open_brackets(text) <= limit)
    return false;
  return json_nesting_depth(text, limit) > limit;
}

}  // namespace hami::k8s
