#include "extender/json_skip.hpp"

#include <bitset>

#include "extender/string_scan.hpp"
#include "k8s/json_depth.hpp"

namespace hami::extender {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

const char* skip_space(const char* p) {
  while (is_space(*p))
    ++p;
  return p;
}

// `p` is past the opening quote. Escapes other than the one-character
// ones (\u and invalid ones) are left to the reader: its surrogate rules
// are its own.
const char* skip_string(const char* p, const char* end) {
  for (;;) {
    p = find_string_run_end(p, end);
    if (*p == '"')
      return p + 1;
    if (*p != '\\' || simple_escape(static_cast<unsigned char>(p[1])) == 0)
      return nullptr;
    p += 2;
  }
}

// Up to 18 digits: beyond that the reader may switch to a double, and
// whether that overflows is its call.
const char* skip_digits(const char* p) {
  const char* const first = p;
  while (*p >= '0' && *p <= '9')
    ++p;
  const auto count = p - first;
  return count >= 1 && count <= 18 ? p : nullptr;
}

const char* skip_number(const char* p) {
  if (*p == '-')
    ++p;
  if (*p == '0') {
    ++p;
  } else {
    p = skip_digits(p);
    if (p == nullptr)
      return nullptr;
  }
  if (*p == '.') {
    p = skip_digits(p + 1);
    if (p == nullptr)
      return nullptr;
  }
  // Exponents (and what follows "01") are the reader's to judge.
  if (*p == 'e' || *p == 'E' || (*p >= '0' && *p <= '9'))
    return nullptr;
  return p;
}

const char* skip_word(const char* p, const char* word, std::size_t length) {
  // The NUL at the end of the text mismatches before the comparison can
  // run past it.
  for (std::size_t i = 0; i < length; ++i) {
    if (p[i] != word[i])
      return nullptr;
  }
  return p + length;
}

// From just before a ':' (whitespace allowed) to the value after it.
const char* skip_colon(const char* p) {
  p = skip_space(p);
  return *p == ':' ? skip_space(p + 1) : nullptr;
}

// From a member's key to its value.
const char* skip_key(const char* p, const char* end) {
  if (*p != '"')
    return nullptr;
  p = skip_string(p + 1, end);
  return p == nullptr ? nullptr : skip_colon(p);
}

}  // namespace

const char* skip_member_value(const char* at, const char* end, std::size_t depth_budget) {
  // One bit per open container: set for an object.
  std::bitset<k8s::kMaxJsonDepth> objects;
  std::size_t depth = 0;
  const char* p = skip_colon(at);
  if (p == nullptr)
    return nullptr;
  for (;;) {
    // A value starts at p.
    switch (*p) {
      case '"':
        p = skip_string(p + 1, end);
        break;
      case '{':
      case '[': {
        const bool object = *p == '{';
        if (depth == depth_budget || depth == objects.size())
          return nullptr;
        objects[depth++] = object;
        p = skip_space(p + 1);
        if (*p == (object ? '}' : ']')) {
          --depth;
          ++p;
          break;
        }
        if (object && (p = skip_key(p, end)) == nullptr)
          return nullptr;
        continue;  // the first member's or element's value
      }
      case 't':
        p = skip_word(p, "true", 4);
        break;
      case 'f':
        p = skip_word(p, "false", 5);
        break;
      case 'n':
        p = skip_word(p, "null", 4);
        break;
      default:
        p = (*p == '-' || (*p >= '0' && *p <= '9')) ? skip_number(p) : nullptr;
        break;
    }
    if (p == nullptr)
      return nullptr;
    // A value ended at p: close containers, or find the next value.
    for (;;) {
      if (depth == 0)
        return p;
      p = skip_space(p);
      const bool object = objects[depth - 1];
      if (*p == ',') {
        p = skip_space(p + 1);
        if (object && (p = skip_key(p, end)) == nullptr)
          return nullptr;
        break;
      }
      if (*p != (object ? '}' : ']'))
        return nullptr;
      --depth;
      ++p;
    }
  }
}

}  // namespace hami::extender
