#include "plugins/plugin_text.hpp"

namespace hami::host {
namespace {

// Length of the valid UTF-8 sequence starting at text[i], 0 when invalid.
std::size_t sequence_length(std::string_view text, std::size_t i) {
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
  if (i + len > text.size())
    return 0;
  const unsigned char b1 = byte(i + 1);
  if (b1 < lo || b1 > hi)
    return 0;
  for (std::size_t k = 2; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80)
      return 0;
  }
  return len;
}

}  // namespace

std::optional<std::size_t> first_invalid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t n = sequence_length(text, i);
    if (n == 0)
      return i;
    i += n;
  }
  return std::nullopt;
}

std::string sanitized_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t n = sequence_length(text, i);
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
