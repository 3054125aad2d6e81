// hami/go_text.hpp against what Go writes (values from Go 1.22's
// strconv.Quote and encoding/json.Marshal).
#include "hami/go_text.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

std::string go_json(std::string_view s) {
  std::string out;
  hami::append_go_json_string(out, s);
  return out;
}

TEST(GoText, QuoteEscapesAsStrconvQuote) {
  EXPECT_EQ(hami::go_quote(""), R"("")");
  EXPECT_EQ(hami::go_quote("plain text"), R"("plain text")");
  EXPECT_EQ(hami::go_quote("say \"hi\" \\"), R"("say \"hi\" \\")");
  EXPECT_EQ(hami::go_quote("\a\b\f\n\r\t\v"), R"("\a\b\f\n\r\t\v")");
  EXPECT_EQ(hami::go_quote(std::string("\x00\x1f\x7f", 3)), R"("\x00\x1f\x7f")");
  EXPECT_EQ(hami::go_quote("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"),
            "\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"");
  EXPECT_EQ(hami::go_quote("\xC2\x85"), R"("\u0085")");              // NEL, a C1 control
  EXPECT_EQ(hami::go_quote("\xC2\xAD"), R"("\u00ad")");              // soft hyphen
  EXPECT_EQ(hami::go_quote("\xE2\x80\xA8"), R"("\u2028")");          // line separator
  EXPECT_EQ(hami::go_quote("\xEF\xBB\xBF"), R"("\ufeff")");          // BOM
  EXPECT_EQ(hami::go_quote("\xF4\x8F\xBF\xBF"), R"("\U0010ffff")");  // noncharacter
  EXPECT_EQ(hami::go_quote("a\xFF\xC3"), R"("a\xff\xc3")");          // invalid bytes
  EXPECT_EQ(hami::go_quote("\xED\xA0\x80"), R"("\xed\xa0\x80")");    // a surrogate
}

TEST(GoText, JsonStringAsJsonMarshal) {
  EXPECT_EQ(go_json(""), R"("")");
  EXPECT_EQ(go_json("GPU-1 \"x\" \\"), R"("GPU-1 \"x\" \\")");
  EXPECT_EQ(go_json("<a&b>"), R"("\u003ca\u0026b\u003e")");
  EXPECT_EQ(go_json("\b\f\n\r\t"), R"("\b\f\n\r\t")");
  EXPECT_EQ(go_json(std::string("\x00\x01\x1f\x7f", 4)), "\"\\u0000\\u0001\\u001f\x7f\"");
  EXPECT_EQ(go_json("\xE2\x80\xA8\xE2\x80\xA9"), R"("\u2028\u2029")");
  EXPECT_EQ(go_json("caf\xC3\xA9"), "\"caf\xC3\xA9\"");
  EXPECT_EQ(go_json("a\xFF\xFE"
                    "b"),
            R"("a\ufffd\ufffdb")");
}

TEST(GoText, DecodedStringReplacesEachInvalidByte) {
  EXPECT_EQ(hami::go_decoded_string("plain"), "plain");
  EXPECT_EQ(hami::go_decoded_string("a\xFF\xFE"
                                    "b"),
            "a\xEF\xBF\xBD\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(hami::go_decoded_string("\xE2\x82"), "\xEF\xBF\xBD\xEF\xBF\xBD");
}

}  // namespace
