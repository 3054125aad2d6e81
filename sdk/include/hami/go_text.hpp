// hami/go_text.hpp — text as Go writes it, for plugins and the host alike.
//
// Header-only SDK utility (like hami/quantity.hpp). HAMi and Kubernetes are
// written in Go, and what they write is compared byte for byte: annotation
// values made by json.Marshal, error texts quoting a value with %q. This
// header is the one place those spellings are written:
//
//   utf8_sequence_length   UTF-8 as Go's unicode/utf8 accepts it (no overlong
//                          forms, no surrogates, nothing above U+10FFFF)
//   append_go_json_string  a JSON string as encoding/json writes it
//                          (json.Marshal, HTML-safe)
//   go_decoded_string      a string as encoding/json decodes it
//   go_quote               strconv.Quote (fmt's %q of a string)
//
// Threading: pure functions, reentrant.
#ifndef HAMI_GO_TEXT_HPP
#define HAMI_GO_TEXT_HPP

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace hami {

// The length (1 to 4) of the valid UTF-8 sequence that starts at text[i],
// or 0 when the bytes there do not form one (Go's utf8.DecodeRune then
// reports RuneError with width 1). `i` < text.size().
inline std::size_t utf8_sequence_length(std::string_view text, std::size_t i) noexcept {
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

namespace go_text_detail {

inline constexpr char kHex[] = "0123456789abcdef";

inline void append_hex(std::string& out, std::uint32_t value, int digits) {
  for (int d = digits - 1; d >= 0; --d)
    out += kHex[(value >> (4 * d)) & 0xF];
}

// The code point of the valid sequence of `len` bytes at text[i].
inline std::uint32_t decode(std::string_view text, std::size_t i, std::size_t len) {
  const auto byte = [&](std::size_t k) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(text[i + k]));
  };
  if (len == 1)
    return byte(0);
  std::uint32_t cp = byte(0) & (0x7Fu >> len);
  for (std::size_t k = 1; k < len; ++k)
    cp = (cp << 6) | (byte(k) & 0x3Fu);
  return cp;
}

// Go's unicode.IsPrint for the code points text here meets: false for the
// C1 controls, the soft hyphen, the line and paragraph separators, format
// characters that break text (U+200B..U+200F, U+202A..U+202E,
// U+2060..U+206F, U+FEFF, U+FFF9..U+FFFB), private use, and noncharacters;
// true for every other code point.
inline bool is_print(std::uint32_t cp) {
  if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || cp == 0xAD)
    return false;
  if ((cp >= 0x200B && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202E) ||
      (cp >= 0x2060 && cp <= 0x206F))
    return false;
  if (cp == 0xFEFF || (cp >= 0xFFF9 && cp <= 0xFFFB))
    return false;
  if ((cp >= 0xE000 && cp <= 0xF8FF) || cp >= 0xF0000)
    return false;
  if ((cp & 0xFFFE) == 0xFFFE || (cp >= 0xFDD0 && cp <= 0xFDEF))
    return false;
  return true;
}

}  // namespace go_text_detail

// The two-character escape Go writes for `c`, or nullptr when it has none:
// '"' '\\' \b \f \n \r \t in JSON strings and in strconv.Quote, and \a \v in
// strconv.Quote only (`quote`).
inline const char* go_short_escape(std::uint32_t c, bool quote) noexcept {
  switch (c) {
    case '"':
      return "\\\"";
    case '\\':
      return "\\\\";
    case '\b':
      return "\\b";
    case '\f':
      return "\\f";
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    case '\a':
      return quote ? "\\a" : nullptr;
    case '\v':
      return quote ? "\\v" : nullptr;
    default:
      return nullptr;
  }
}

// Appends `s` as a quoted JSON string as Go's json.Marshal writes it:
// '"' and '\\' escaped, \b \f \n \r \t short, other control characters and
// '<' '>' '&' as \u00XX, U+2028 and U+2029 as \u2028 / \u2029, and each
// byte that is not valid UTF-8 as \ufffd.
inline void append_go_json_string(std::string& out, std::string_view s) {
  out += '"';
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (const char* escape = go_short_escape(c, false)) {
        out += escape;
      } else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
        out += "\\u00";
        go_text_detail::append_hex(out, c, 2);
      } else {
        out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    const std::size_t width = utf8_sequence_length(s, i);
    if (width == 0) {
      out += "\\ufffd";
      ++i;
      continue;
    }
    const std::uint32_t cp = go_text_detail::decode(s, i, width);
    if (cp == 0x2028 || cp == 0x2029) {
      out += "\\u";
      go_text_detail::append_hex(out, cp, 4);
    } else {
      out.append(s.substr(i, width));
    }
    i += width;
  }
  out += '"';
}

// `s` as Go's JSON decoder stores a string: each byte that is not valid
// UTF-8 becomes U+FFFD.
inline std::string go_decoded_string(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t width = utf8_sequence_length(s, i);
    if (width == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    out.append(s.substr(i, width));
    i += width;
  }
  return out;
}

// `s` as Go's strconv.Quote writes it (fmt's %q of a string): in double
// quotes, '"' and '\\' escaped, \a \b \f \n \r \t \v short, other control
// characters and bytes that are not valid UTF-8 as \xNN, printable code
// points as they are, other code points as \uNNNN or \UNNNNNNNN.
inline std::string go_quote(std::string_view s) {
  std::string out = "\"";
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t width = utf8_sequence_length(s, i);
    if (width == 0) {
      out += "\\x";
      go_text_detail::append_hex(out, static_cast<unsigned char>(s[i]), 2);
      ++i;
      continue;
    }
    const std::uint32_t cp = go_text_detail::decode(s, i, width);
    if (const char* escape = go_short_escape(cp, true)) {
      out += escape;
    } else if (go_text_detail::is_print(cp)) {
      out.append(s.substr(i, width));
    } else if (cp < 0x20 || cp == 0x7F) {
      out += "\\x";
      go_text_detail::append_hex(out, cp, 2);
    } else if (cp < 0x10000) {
      out += "\\u";
      go_text_detail::append_hex(out, cp, 4);
    } else {
      out += "\\U";
      go_text_detail::append_hex(out, cp, 8);
    }
    i += width;
  }
  out += '"';
  return out;
}

}  // namespace hami

#endif  // HAMI_GO_TEXT_HPP
