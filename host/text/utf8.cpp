#include "text/utf8.hpp"

#include <cstdint>
#include <cstring>

namespace hami::text {

std::size_t utf8_sequence_length(std::string_view text, std::size_t i) noexcept {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b0 = byte(i);
  if (b0 < 0x80)
    return 1;
  std::size_t len = 0;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
    if (b0 == 0xE0)
      lo = 0xA0;  // overlong
    if (b0 == 0xED)
      hi = 0x9F;  // UTF-16 surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
    if (b0 == 0xF0)
      lo = 0x90;  // overlong
    if (b0 == 0xF4)
      hi = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (text.size() - i < len)
    return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi)
    return 0;
  for (std::size_t k = 2; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80)
      return 0;
  }
  return len;
}

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
