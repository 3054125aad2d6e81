#include "plugins/plugin_text.hpp"

#include "text/utf8.hpp"

namespace hami::host {
std::optional<std::size_t> first_invalid_utf8(std::string_view text) {
  const std::size_t valid = text::valid_utf8_prefix(text);
  if (valid == text.size())
    return std::nullopt;
  return valid;
}

std::string sanitized_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t n = text::utf8_sequence_length(text, i);
    if (n == 0) {
      out += '?';
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

}  // namespace hami::host
