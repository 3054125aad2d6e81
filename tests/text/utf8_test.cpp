#include "text/utf8.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace {

using hami::text::is_valid_utf8;
using hami::text::to_valid_utf8;
using hami::text::utf8_sequence_length;
using hami::text::valid_utf8_prefix;

// The length of the valid UTF-8 sequence at the start of `bytes` by the
// definition (RFC 3629 §3): decode by the bit patterns, then refuse
// overlong forms, surrogates and code points above U+10FFFF. 0 if none.
size_t reference_length(const std::string& bytes) {
  const auto b = [&](size_t k) { return static_cast<uint8_t>(bytes[k]); };
  size_t len = 0;
  uint32_t cp = 0;
  if (b(0) < 0x80)
    return 1;
  if ((b(0) & 0xE0) == 0xC0) {
    len = 2;
    cp = b(0) & 0x1Fu;
  } else if ((b(0) & 0xF0) == 0xE0) {
    len = 3;
    cp = b(0) & 0x0Fu;
  } else if ((b(0) & 0xF8) == 0xF0) {
    len = 4;
    cp = b(0) & 0x07u;
  } else {
    return 0;
  }
  if (bytes.size() < len)
    return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((b(k) & 0xC0) != 0x80)
      return 0;
    cp = (cp << 6) | (b(k) & 0x3Fu);
  }
  const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < least[len] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
    return 0;
  return len;
}

std::string bytes_of(std::initializer_list<int> values) {
  std::string out;
  for (const int v : values)
    out.push_back(static_cast<char>(v));
  return out;
}

TEST(Utf8, EveryTwoAndThreeByteSequenceAgreesWithTheDefinition) {
  for (int b0 = 0x80; b0 <= 0xFF; ++b0) {
    for (int b1 = 0; b1 <= 0xFF; ++b1) {
      const std::string two = bytes_of({b0, b1});
      ASSERT_EQ(utf8_sequence_length(two, 0), reference_length(two)) << b0 << " " << b1;
      if (b0 < 0xE0 || b0 > 0xEF)
        continue;
      for (int b2 = 0; b2 <= 0xFF; ++b2) {
        const std::string three = bytes_of({b0, b1, b2});
        ASSERT_EQ(utf8_sequence_length(three, 0), reference_length(three))
            << b0 << " " << b1 << " " << b2;
      }
    }
  }
}

TEST(Utf8, EveryFourByteLeadAgreesWithTheDefinition) {
  const int tails[] = {0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF};
  for (int b0 = 0xF0; b0 <= 0xFF; ++b0) {
    for (int b1 = 0; b1 <= 0xFF; ++b1) {
      for (const int b2 : tails) {
        for (const int b3 : tails) {
          const std::string four = bytes_of({b0, b1, b2, b3});
          ASSERT_EQ(utf8_sequence_length(four, 0), reference_length(four))
              << b0 << " " << b1 << " " << b2 << " " << b3;
        }
      }
    }
  }
}

TEST(Utf8, BoundariesOfTheValidRanges) {
  EXPECT_EQ(utf8_sequence_length("\x7F", 0), 1u);
  EXPECT_EQ(utf8_sequence_length("\xC2\x80", 0), 2u);          // U+0080
  EXPECT_EQ(utf8_sequence_length("\xC1\xBF", 0), 0u);          // overlong U+007F
  EXPECT_EQ(utf8_sequence_length("\xE0\xA0\x80", 0), 3u);      // U+0800
  EXPECT_EQ(utf8_sequence_length("\xE0\x9F\xBF", 0), 0u);      // overlong U+07FF
  EXPECT_EQ(utf8_sequence_length("\xED\x9F\xBF", 0), 3u);      // U+D7FF
  EXPECT_EQ(utf8_sequence_length("\xED\xA0\x80", 0), 0u);      // U+D800, a surrogate
  EXPECT_EQ(utf8_sequence_length("\xF0\x90\x80\x80", 0), 4u);  // U+10000
  EXPECT_EQ(utf8_sequence_length("\xF0\x8F\xBF\xBF", 0), 0u);  // overlong U+FFFF
  EXPECT_EQ(utf8_sequence_length("\xF4\x8F\xBF\xBF", 0), 4u);  // U+10FFFF
  EXPECT_EQ(utf8_sequence_length("\xF4\x90\x80\x80", 0), 0u);  // U+110000
  EXPECT_EQ(utf8_sequence_length("\xE2\x82", 0), 0u);          // truncated
  EXPECT_EQ(utf8_sequence_length("\x80", 0), 0u);              // a lone continuation
}

TEST(Utf8, PrefixStopsAtTheFirstInvalidByteInsideAndAfterAsciiWords) {
  EXPECT_EQ(valid_utf8_prefix(""), 0u);
  EXPECT_EQ(valid_utf8_prefix("0123456789abcdef"), 16u);
  EXPECT_EQ(valid_utf8_prefix("0123456789abc\xFF"
                              "def"),
            13u);
  EXPECT_EQ(valid_utf8_prefix("01234567\xC3\xA9"
                              "89abcdef\xC3"),
            18u);
  EXPECT_TRUE(is_valid_utf8("gpu-\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80 and more ascii"));
  EXPECT_FALSE(is_valid_utf8("ascii then \xED\xA0\x80"));
}

TEST(Utf8, RepairReplacesEachInvalidRunWithOneReplacementAsGoDoes) {
  EXPECT_EQ(to_valid_utf8("plain"), "plain");
  EXPECT_EQ(to_valid_utf8("a\xFF\xFE"
                          "b"),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(to_valid_utf8("\xE2\x82"), "\xEF\xBF\xBD");
  EXPECT_EQ(to_valid_utf8("\xFF\xC3\xA9\xFF"), "\xEF\xBF\xBD\xC3\xA9\xEF\xBF\xBD");
}

}  // namespace
