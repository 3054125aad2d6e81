#include "admission/json_text.hpp"

#include <cstdint>
#include <cstring>

namespace hami::admission {

namespace {

// Length of the valid UTF-8 sequence starting at text[i] (which is >= 0x80),
// or 0 when the bytes there are not one (RFC 3629 table).
size_t utf8_sequence(std::string_view text, size_t i) noexcept {
  const auto at = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  const uint8_t b0 = at(i);
  const size_t left = text.size() - i;
  const auto cont = [&](size_t k) { return (at(i + k) & 0xC0) == 0x80; };
  if (b0 >= 0xC2 && b0 <= 0xDF)
    return left >= 2 && cont(1) ? 2 : 0;
  if (b0 >= 0xE0 && b0 <= 0xEF) {
    if (left < 3 || !cont(1) || !cont(2))
      return 0;
    const uint8_t b1 = at(i + 1);
    if (b0 == 0xE0 && b1 < 0xA0)
      return 0;  // overlong
    if (b0 == 0xED && b1 > 0x9F)
      return 0;  // surrogate
    return 3;
  }
  if (b0 >= 0xF0 && b0 <= 0xF4) {
    if (left < 4 || !cont(1) || !cont(2) || !cont(3))
      return 0;
    const uint8_t b1 = at(i + 1);
    if (b0 == 0xF0 && b1 < 0x90)
      return 0;  // overlong
    if (b0 == 0xF4 && b1 > 0x8F)
      return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

}  // namespace

size_t valid_utf8_prefix(std::string_view text) noexcept {
  constexpr uint64_t kHighBits = 0x8080808080808080ULL;
  size_t i = 0;
  while (i < text.size()) {
    if (text.size() - i >= 8) {
      uint64_t word = 0;
      std::memcpy(&word, text.data() + i, sizeof word);
      if ((word & kHighBits) == 0) {
        i += 8;
        continue;
      }
    }
    if (static_cast<uint8_t>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t n = utf8_sequence(text, i);
    if (n == 0)
      return i;
    i += n;
  }
  return text.size();
}

void append_json_string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  size_t clean = 0;  // start of the run of bytes that are copied unchanged
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      const size_t n = utf8_sequence(text, i);
      if (n != 0) {
        i += n;
        continue;
      }
      out.append(text.data() + clean, i - clean);
      out += "\xEF\xBF\xBD";  // U+FFFD
      clean = ++i;
      continue;
    }
    out.append(text.data() + clean, i - clean);
    clean = ++i;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        out += "\\u00";
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 15]);
        break;
    }
  }
  out.append(text.data() + clean, text.size() - clean);
  out.push_back('"');
}

}  // namespace hami::admission
