// Finding where a JSON string's plain run ends, a block at a time.
#pragma once

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <bit>
#include <cstdint>
#include <cstring>

namespace hami::extender {

// True for the characters that end a plain run inside a JSON string: the
// closing quote, an escape, and the control characters (NUL included),
// which a string may not hold unescaped.
inline bool ends_string_run(unsigned char c) {
  return c == '"' || c == '\\' || c < 0x20;
}

#if !defined(__SSE2__)
// The high bit of each byte of `w` that ends a run, exact up to the lowest
// one (a borrow may mark higher bytes): the first in memory on a
// little-endian machine.
inline uint64_t run_end_bytes(uint64_t w) {
  constexpr uint64_t kOnes = 0x0101010101010101;
  constexpr uint64_t kHigh = 0x8080808080808080;
  const auto below = [](uint64_t v, uint64_t n) { return (v - kOnes * n) & ~v & kHigh; };
  return below(w ^ (kOnes * '"'), 1) | below(w ^ (kOnes * '\\'), 1) | below(w, 0x20);
}
#endif

#if defined(__SSE2__)
// One bit per character of `block` that ends a run (bit i: character i).
inline unsigned string_run_ends(__m128i block) {
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i control = _mm_set1_epi8(0x1F);
  const __m128i ends =
      _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(block, quote), _mm_cmpeq_epi8(block, backslash)),
                   _mm_cmpeq_epi8(_mm_max_epu8(block, control), control));
  return static_cast<unsigned>(_mm_movemask_epi8(ends));
}
#endif

// The first character at or after `from` that ends a run. Reads whole
// blocks while they lie before `end`, then byte by byte: the text must hold
// such a character at or before `end` (a NUL terminator does).
inline const char* find_string_run_end(const char* from, const char* end) {
  const char* at = from;
#if defined(__SSE2__)
  while (end - at >= 16) {
    const unsigned mask = string_run_ends(_mm_loadu_si128(reinterpret_cast<const __m128i*>(at)));
    if (mask != 0)
      return at + std::countr_zero(mask);
    at += 16;
  }
#else
  if constexpr (std::endian::native == std::endian::little) {
    while (end - at >= 8) {
      uint64_t word;
      std::memcpy(&word, at, sizeof word);
      const uint64_t stops = run_end_bytes(word);
      if (stops != 0)
        return at + std::countr_zero(stops) / 8;
      at += 8;
    }
  }
#endif
  while (!ends_string_run(static_cast<unsigned char>(*at)))
    ++at;
  return at;
}

// Copies the plain run at `src` to `dst`, returns its end and moves `dst`
// past the copy. Copies 16 characters at a time while they lie before
// `end` and only then looks for the run's end in them, so up to 15
// characters past the copy are written too, for later output to overwrite:
// `dst` must lie no further into its buffer than `src` lies into the text,
// and the buffer must be as long as the text. The escapes of a
// registration annotation (JSON inside a JSON string) come every few
// characters; a call to memcpy for each short run cost more than copying.
inline const char* copy_string_run(const char* src, char*& dst, const char* end) {
#if defined(__SSE2__)
  while (end - src >= 16) {
    std::memcpy(dst, src, 16);
    const unsigned mask = string_run_ends(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src)));
    if (mask != 0) {
      const int n = std::countr_zero(mask);
      dst += n;
      return src + n;
    }
    src += 16;
    dst += 16;
  }
#endif
  const char* const stop = find_string_run_end(src, end);
  const auto n = static_cast<std::size_t>(stop - src);
  std::memcpy(dst, src, n);
  dst += n;
  return stop;
}

// What a one-character escape stands for (\" \\ \/ \b \f \n \r \t); 0 for
// 'u' and for anything that is not an escape.
inline char simple_escape(unsigned char c) {
  switch (c) {
    case '"':
      return '"';
    case '\\':
      return '\\';
    case '/':
      return '/';
    case 'b':
      return '\b';
    case 'f':
      return '\f';
    case 'n':
      return '\n';
    case 'r':
      return '\r';
    case 't':
      return '\t';
    default:
      return 0;
  }
}

}  // namespace hami::extender
