#include "text/utf8.hpp"

#include <cstdint>
#include <cstring>

namespace hami::text {

std::size_t valid_utf8_prefix(std::string_view text) noexcept {
  constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text.size() - i >= 8) {
      std::uint64_t word = 0;
      std::memcpy(&word, text.data() + i, sizeof word);
      if ((word & kHighBits) == 0) {
        i += 8;
        continue;
      }
    }
    const std::size_t n = utf8_sequence_length(text, i);
    if (n == 0)
      return i;
    i += n;
  }
  return text.size();
}

std::string to_valid_utf8(std::string_view text) {
  constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
  std::string out;
  out.reserve(text.size() + 2);
  bool in_invalid_run = false;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t len = utf8_sequence_length(text, i);
    if (len == 0) {
      if (!in_invalid_run)
        out += kReplacement;
      in_invalid_run = true;
      ++i;
      continue;
    }
    in_invalid_run = false;
    out.append(text.substr(i, len));
    i += len;
  }
  return out;
}

}  // namespace hami::text
