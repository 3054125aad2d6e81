#include "admission/json_patch.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "admission/json_text.hpp"
#include "platform/base64.hpp"

namespace hami::admission {
namespace {

TEST(Base64, MatchesRfc4648Vectors) {
  const std::pair<std::string, std::string> vectors[] = {{"", ""},
                                                         {"f", "Zg=="},
                                                         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},
                                                         {"foob", "Zm9vYg=="},
                                                         {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"},
                                                         {std::string("\xff\xfe\x00", 3), "//4A"}};
  for (const auto& [in, want] : vectors) {
    std::string out = "x";
    platform::append_base64(out, in);
    EXPECT_EQ(out, "x" + want) << in;
  }
}

TEST(Base64, EncodesTheSeedsPatch) {
  std::string out;
  platform::append_base64(
      out, R"([{"op":"replace","path":"/spec/schedulerName","value":"hami-scheduler"}])");
  EXPECT_EQ(out,
            "W3sib3AiOiJyZXBsYWNlIiwicGF0aCI6Ii9zcGVjL3NjaGVkdWxlck5hbWUiLCJ2YWx1ZSI6ImhhbWktc2NoZW"
            "R1bGVyIn1d");
}

TEST(JsonText, EscapesQuotesBackslashesAndControlCharacters) {
  std::string out;
  static constexpr char kRaw[] = "a\"b\\c\n\r\t\b\f\x01\x1f/\xc3\xa9";
  const std::string raw(kRaw, sizeof kRaw - 1);
  append_json_string(out, raw);
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\n\\r\\t\\b\\f\\u0001\\u001f/\xc3\xa9\"");
  // The result is JSON an independent parser reads back to the same bytes.
  EXPECT_EQ(nlohmann::json::parse(out).get<std::string>(), raw);
  out.clear();
  append_json_string(out, std::string("\0x", 2));
  EXPECT_EQ(out, "\"\\u0000x\"");
  out.clear();
  append_json_string(out, "");
  EXPECT_EQ(out, "\"\"");
}

TEST(JsonText, InvalidUtf8BecomesReplacementCharacters) {
  std::string out;
  append_json_string(out,
                     "a\xff"
                     "b\xc3"
                     "\xe2\x82"
                     "c\xed\xa0\x80\xf4\x90\x80\x80\xc0\xaf");
  const std::string r = "\xEF\xBF\xBD";
  // Each offending byte becomes U+FFFD; valid neighbours stay.
  EXPECT_EQ(out, "\"a" + r + "b" + r + r + r + "c" + r + r + r + r + r + r + r + r + r + "\"");
  EXPECT_EQ(nlohmann::json::parse(out).get<std::string>().substr(0, 1), "a");
  out.clear();
  append_json_string(out, "\xf0\x9f\x98\x80\xe2\x82\xac\xc3\xa9");  // 4-, 3-, 2-byte forms
  EXPECT_EQ(out, "\"\xf0\x9f\x98\x80\xe2\x82\xac\xc3\xa9\"");
}

TEST(JsonText, Utf8Validation) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("plain ascii ~/"));
  EXPECT_TRUE(is_valid_utf8("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf"));
  EXPECT_FALSE(is_valid_utf8("\xff"));
  EXPECT_FALSE(is_valid_utf8("\xc3"));              // truncated
  EXPECT_FALSE(is_valid_utf8("\xc0\xaf"));          // overlong '/'
  EXPECT_FALSE(is_valid_utf8("\xe0\x80\xaf"));      // overlong
  EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));      // surrogate
  EXPECT_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(is_valid_utf8("\x80"));              // lone continuation
  // The eight-byte ASCII steps must not skip a bad byte at any position.
  for (size_t at = 0; at < 24; ++at) {
    std::string text(24, 'x');
    text[at] = '\xff';
    EXPECT_EQ(valid_utf8_prefix(text), at) << at;
    text[at] = '\xc3';
    if (at + 1 < text.size()) {
      text[at + 1] = '\xa9';
      EXPECT_EQ(valid_utf8_prefix(text), text.size()) << at;
    }
  }
}

TEST(JsonPatch, EmptyPatchIsAnEmptyArray) {
  const JsonPatch patch;
  EXPECT_TRUE(patch.empty());
  EXPECT_EQ(patch.size(), 0U);
  EXPECT_EQ(patch.json(), "[]");
}

TEST(JsonPatch, WritesOperationsInOrderWithExactText) {
  JsonPatch patch;
  patch.add_empty_object("/spec/containers/0/resources");
  patch.add_empty_object("/spec/containers/0/resources/limits");
  patch.add("/spec/containers/0/resources/limits/nvidia.com~1gpucores", "100");
  patch.add_empty_array("/spec/containers/0/env");
  patch.add_object("/spec/containers/0/env/0", {{"name", "A"}, {"value", "x\"y"}});
  patch.replace_object("/spec/containers/0/env/0", {{"name", "A"}, {"value", ""}});
  patch.replace("/spec/schedulerName", "hami-scheduler");
  EXPECT_EQ(patch.size(), 7U);
  EXPECT_EQ(
      patch.json(),
      R"([{"op":"add","path":"/spec/containers/0/resources","value":{}},)"
      R"({"op":"add","path":"/spec/containers/0/resources/limits","value":{}},)"
      R"({"op":"add","path":"/spec/containers/0/resources/limits/nvidia.com~1gpucores","value":"100"},)"
      R"({"op":"add","path":"/spec/containers/0/env","value":[]},)"
      R"({"op":"add","path":"/spec/containers/0/env/0","value":{"name":"A","value":"x\"y"}},)"
      R"({"op":"replace","path":"/spec/containers/0/env/0","value":{"name":"A","value":""}},)"
      R"({"op":"replace","path":"/spec/schedulerName","value":"hami-scheduler"}])");
  EXPECT_EQ(nlohmann::json::parse(patch.json()).size(), 7U);
}

}  // namespace
}  // namespace hami::admission
