#include "extender/json_reader.hpp"

#include <rapidjson/reader.h>

#include <bit>
#include <cstring>
#include <limits>
#include <string>

#include "extender/json_skip.hpp"
#include "extender/string_scan.hpp"

namespace hami::extender {

namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// The value of a hex digit, or -1.
int hex_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

// The four hex digits at `p` (which a NUL ends, so it never reads past
// one), or -1.
int32_t hex4(const char* p) {
  int32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    const int d = hex_value(p[i]);
    if (d < 0)
      return -1;
    v = v * 16 + d;
  }
  return v;
}

// Writes `cp` as UTF-8, as RapidJSON's UTF8::Encode does (a lone low
// surrogate included).
char* encode_utf8(char* out, uint32_t cp) {
  if (cp <= 0x7F) {
    *out++ = static_cast<char>(cp);
  } else if (cp <= 0x7FF) {
    *out++ = static_cast<char>(0xC0 | (cp >> 6));
    *out++ = static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp <= 0xFFFF) {
    *out++ = static_cast<char>(0xE0 | (cp >> 12));
    *out++ = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out++ = static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    *out++ = static_cast<char>(0xF0 | (cp >> 18));
    *out++ = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    *out++ = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out++ = static_cast<char>(0x80 | (cp & 0x3F));
  }
  return out;
}

#if defined(__SSE2__)
// Copies and decodes the string at `src` to `dst` a block of 16 at a time
// while two blocks of the text remain, decoding the one-character escapes
// inside a block from the block's mask of special characters: the
// registration annotations are JSON inside a JSON string, with an escaped
// quote every few characters, and finding the run's end again after each
// one cost more than the copying. Returns where it stopped (the closing
// quote, a control character, an escape it leaves to the caller, or the
// text's last blocks) and moves `dst` past what it wrote. Each block is
// stored before its end is known, so up to 15 characters more are written,
// for later output to overwrite; the decoded text never outgrows the JSON
// text, so they stay inside the buffer.
const char* decode_blocks(const char* src, char*& dst, const char* end) {
  char* out = dst;
  while (end - src >= 32) {
    unsigned specials = string_run_ends(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src)));
    unsigned at = 0;  // characters of this block consumed
    while (specials != 0) {
      const auto i = static_cast<unsigned>(std::countr_zero(specials));
      std::memcpy(out, src + at, 16);
      out += i - at;
      const char decoded =
          src[i] == '\\' ? simple_escape(static_cast<unsigned char>(src[i + 1])) : 0;
      if (decoded == 0) {
        dst = out;
        return src + i;
      }
      *out++ = decoded;
      at = i + 2;
      // The escaped character may itself be special (\" or \\).
      specials &= ~0u << at;
    }
    if (at < 16) {
      std::memcpy(out, src + at, 16);
      out += 16 - at;
      at = 16;
    }
    src += at;
  }
  dst = out;
  return src;
}
#endif

// The most digits a plain integer may have to be converted here: 18
// digits fit every RapidJSON integer event; longer ones may be doubles.
constexpr std::ptrdiff_t kPlainDigits = 18;

}  // namespace

JsonReader::JsonReader(std::string_view text, char* strings, rapidjson::Document& doc,
                       std::size_t max_depth)
    : begin_(text.data()),
      end_(text.data() + text.size()),
      at_(text.data()),
      out_(strings),
      doc_(doc),
      max_depth_(max_depth) {}

bool JsonReader::fail(Failure failure) {
  failure_ = failure;
  return false;
}

bool JsonReader::enter(std::size_t open) {
  return open < max_depth_ || fail(Failure::too_deep);
}

bool JsonReader::value(bool keep, std::size_t open) {
  switch (peek()) {
    case '{':
      return container(keep, open, true);
    case '[':
      return container(keep, open, false);
    case '"':
      return string(keep, nullptr);
    case 't':
      return literal("true") && (!keep || doc_.Bool(true));
    case 'f':
      return literal("false") && (!keep || doc_.Bool(false));
    case 'n':
      return literal("null") && (!keep || doc_.Null());
    default:
      return number(keep);
  }
}

bool JsonReader::container(bool keep, std::size_t open, bool object) {
  if (!enter(open))
    return false;
  ++at_;
  if (keep && !(object ? doc_.StartObject() : doc_.StartArray()))
    return fail(Failure::syntax);
  const char close = object ? '}' : ']';
  rapidjson::SizeType count = 0;
  if (!consume(close)) {
    for (;;) {
      if (object) {
        if (peek() != '"')
          return fail(Failure::syntax);
        std::string_view key;
        if (!string(keep, &key) || (keep && !keep_key(key)))
          return false;
        if (!consume(':'))
          return fail(Failure::syntax);
      }
      if (!value(keep, open + 1))
        return false;
      ++count;
      if (consume(','))
        continue;
      if (consume(close))
        break;
      return fail(Failure::syntax);
    }
  }
  if (keep && !(object ? doc_.EndObject(count) : doc_.EndArray(count)))
    return fail(Failure::syntax);
  return true;
}

bool JsonReader::read_key(std::string_view& key) {
  if (peek() != '"')
    return fail(Failure::syntax);
  // Decoded where the next kept string goes: keep_key keeps it there.
  return string(true, &key);
}

bool JsonReader::keep_key(std::string_view key) {
  out_ += key.size() + 1;
  return doc_.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()), false) ||
         fail(Failure::syntax);
}

bool JsonReader::skip_member_value(std::size_t open) {
  // The structural scan when it is sure of the value; the checking read
  // otherwise (a \u escape, a long number, deep nesting, an error).
  if (const char* after = hami::extender::skip_member_value(at_, end_, max_depth_ - open)) {
    at_ = after;
    return true;
  }
  if (!consume(':'))
    return fail(Failure::syntax);
  return value(false, open);
}

bool JsonReader::string(bool keep, std::string_view* decoded) {
  ++at_;  // the opening quote
  char* out = out_;
  const char* p = at_;
  for (;;) {
    // The decoded text is never longer than the JSON text before it, as
    // decode_blocks and copy_string_run need.
    if (keep) {
#if defined(__SSE2__)
      p = decode_blocks(p, out, end_);
#endif
      p = copy_string_run(p, out, end_);
    } else {
      p = find_string_run_end(p, end_);
    }
    if (*p == '"')
      break;
    if (*p != '\\') {
      at_ = p;
      return fail(Failure::syntax);  // a control character, or the end
    }
    if (const char simple = simple_escape(static_cast<unsigned char>(p[1])); simple != 0) {
      if (keep)
        *out++ = simple;
      p += 2;
      continue;
    }
    if (p[1] != 'u') {
      at_ = p;
      return fail(Failure::syntax);
    }
    int32_t cp = hex4(p + 2);
    if (cp < 0) {
      at_ = p;
      return fail(Failure::syntax);
    }
    p += 6;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      // A high surrogate: its low half must follow.
      const int32_t low = p[0] == '\\' && p[1] == 'u' ? hex4(p + 2) : -1;
      if (low < 0xDC00 || low > 0xDFFF) {
        at_ = p;
        return fail(Failure::syntax);
      }
      cp = (((cp - 0xD800) << 10) | (low - 0xDC00)) + 0x10000;
      p += 6;
    }
    if (keep)
      out = encode_utf8(out, static_cast<uint32_t>(cp));
  }
  at_ = p + 1;
  if (!keep)
    return true;
  *out = '\0';
  const std::string_view text(out_, static_cast<std::size_t>(out - out_));
  if (decoded != nullptr) {
    // A key: its caller keeps its space (and emits it) or not.
    *decoded = text;
    return true;
  }
  out_ = out + 1;
  return doc_.String(text.data(), static_cast<rapidjson::SizeType>(text.size()), false) ||
         fail(Failure::syntax);
}

bool JsonReader::literal(std::string_view word) {
  if (std::strncmp(at_, word.data(), word.size()) != 0)
    return fail(Failure::syntax);
  at_ += word.size();
  return true;
}

bool JsonReader::number(bool keep) {
  const char* const start = at_;
  const char* p = at_;
  const bool minus = *p == '-';
  if (minus)
    ++p;
  const char* const digits = p;
  if (*p == '0') {
    ++p;
  } else if (is_digit(*p)) {
    while (is_digit(*p))
      ++p;
  } else {
    at_ = p;
    return fail(Failure::syntax);
  }
  const std::ptrdiff_t integer_digits = p - digits;
  bool plain = true;
  if (*p == '.') {
    ++p;
    if (!is_digit(*p)) {
      at_ = p;
      return fail(Failure::syntax);
    }
    while (is_digit(*p))
      ++p;
    plain = false;
  }
  if (*p == 'e' || *p == 'E') {
    ++p;
    if (*p == '+' || *p == '-')
      ++p;
    if (!is_digit(*p)) {
      at_ = p;
      return fail(Failure::syntax);
    }
    while (is_digit(*p))
      ++p;
    plain = false;
  }
  at_ = p;
  if (plain && integer_digits <= kPlainDigits) {
    if (!keep)
      return true;
    uint64_t v = 0;
    for (const char* d = digits; d < p; ++d)
      v = v * 10 + static_cast<uint64_t>(*d - '0');
    // RapidJSON's events: the 32-bit ones while the value fits them.
    bool ok = false;
    if (minus) {
      const auto negative = -static_cast<int64_t>(v);
      ok = negative >= std::numeric_limits<int32_t>::min()
               ? doc_.Int(static_cast<int32_t>(negative))
               : doc_.Int64(negative);
    } else {
      ok = v <= std::numeric_limits<uint32_t>::max() ? doc_.Uint(static_cast<uint32_t>(v))
                                                     : doc_.Uint64(v);
    }
    return ok || fail(Failure::syntax);
  }
  // A fraction, an exponent or many digits: RapidJSON converts it, and says
  // whether it overflows a double.
  const std::string token(start, p);
  rapidjson::StringStream in(token.c_str());
  rapidjson::Reader reader;
  bool ok = false;
  if (keep) {
    ok = !reader.Parse(in, doc_).IsError();
  } else {
    rapidjson::BaseReaderHandler<> ignore;
    ok = !reader.Parse(in, ignore).IsError();
  }
  if (!ok)
    at_ = start;
  return ok || fail(Failure::syntax);
}

}  // namespace hami::extender
