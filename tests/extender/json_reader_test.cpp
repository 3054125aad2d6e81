// JsonReader: the document it builds is the one RapidJSON's reader builds,
// event for event, and what it refuses RapidJSON refuses, in RapidJSON's
// words (json_syntax_error).
#include "extender/json_reader.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <memory>
#include <string>

#include "extender/json_syntax_error.hpp"

namespace hami::extender {
namespace {

struct Read {
  explicit Read(std::string text_, std::size_t max_depth = 512)
      : text(std::move(text_)), strings(std::make_unique<char[]>(text.size() + 1)) {
    JsonReader in(text, strings.get(), doc, max_depth);
    auto generate = [&in](rapidjson::Document&) {
      return in.value(true, 0) && (in.peek() == '\0' || in.fail(JsonReader::Failure::syntax));
    };
    doc.Populate(generate);
    failure = in.failure();
    offset = in.offset();
  }
  std::string text;
  std::unique_ptr<char[]> strings;
  rapidjson::Document doc;
  JsonReader::Failure failure = JsonReader::Failure::none;
  std::size_t offset = 0;
};

TEST(JsonReader, IntegersGetRapidJsonsNarrowestEvent) {
  const Read r(R"([0, -0, 4294967295, 4294967296, -2147483648, -2147483649, 999999999999999999,)"
               R"( -999999999999999999])");
  ASSERT_EQ(r.failure, JsonReader::Failure::none);
  const auto& a = r.doc.GetArray();
  ASSERT_EQ(a.Size(), 8u);
  EXPECT_TRUE(a[0].IsUint());
  EXPECT_TRUE(a[1].IsInt());
  EXPECT_EQ(a[1].GetInt(), 0);
  EXPECT_TRUE(a[2].IsUint());
  EXPECT_EQ(a[2].GetUint(), 4294967295u);
  EXPECT_FALSE(a[3].IsUint());
  EXPECT_TRUE(a[3].IsUint64());
  EXPECT_TRUE(a[4].IsInt());
  EXPECT_EQ(a[4].GetInt(), -2147483648);
  EXPECT_FALSE(a[5].IsInt());
  EXPECT_EQ(a[5].GetInt64(), -2147483649);
  EXPECT_EQ(a[6].GetUint64(), 999999999999999999u);
  EXPECT_EQ(a[7].GetInt64(), -999999999999999999);
}

TEST(JsonReader, OtherNumbersAreRapidJsonsOwn) {
  const Read r(R"([18446744073709551615, 18446744073709551616, 1.5, -2e3, 0.1])");
  rapidjson::Document expected;
  expected.Parse(r.text.c_str());
  ASSERT_EQ(r.failure, JsonReader::Failure::none);
  const auto& a = r.doc.GetArray();
  EXPECT_TRUE(a[0].IsUint64());
  EXPECT_EQ(a[0].GetUint64(), 18446744073709551615u);
  EXPECT_TRUE(a[1].IsDouble());
  for (rapidjson::SizeType i = 1; i < a.Size(); ++i)
    EXPECT_EQ(a[i].GetDouble(), expected[i].GetDouble()) << i;
}

TEST(JsonReader, EscapesDecodeAsRapidJsonDecodesThem) {
  const Read r(R"(["a\"b\\c\/d\b\f\n\r\t", "\u00e9\u20ac\ud83d\ude00", "\udc00", "x\u0000y"])");
  ASSERT_EQ(r.failure, JsonReader::Failure::none);
  const auto& a = r.doc.GetArray();
  EXPECT_EQ(std::string(a[0].GetString(), a[0].GetStringLength()), "a\"b\\c/d\b\f\n\r\t");
  EXPECT_EQ(std::string(a[1].GetString(), a[1].GetStringLength()),
            "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
  // A lone low surrogate is written as three bytes, as RapidJSON 1.1 does.
  EXPECT_EQ(std::string(a[2].GetString(), a[2].GetStringLength()), "\xed\xb0\x80");
  EXPECT_EQ(std::string(a[3].GetString(), a[3].GetStringLength()), std::string("x\0y", 3));
}

TEST(JsonReader, LongStringsWithEscapesEveryFewCharactersDecodeWhole) {
  // JSON inside a JSON string, as a registration annotation is, long
  // enough for the block copies.
  std::string inner;
  std::string escaped;
  for (int i = 0; i < 40; ++i) {
    const std::string piece = R"({"id":"GPU-)" + std::to_string(i) + R"(","count":10})";
    inner += piece;
    for (const char c : piece)
      escaped += c == '"' ? std::string("\\\"") : std::string(1, c);
  }
  const Read r("{\"k\":\"" + escaped + "\"}");
  ASSERT_EQ(r.failure, JsonReader::Failure::none);
  EXPECT_EQ(std::string(r.doc["k"].GetString(), r.doc["k"].GetStringLength()), inner);
}

TEST(JsonReader, ANulEndsTheText) {
  const Read r(std::string("{\"a\":1}\0 trailing", 17));
  EXPECT_EQ(r.failure, JsonReader::Failure::none);
  EXPECT_EQ(r.doc["a"].GetInt(), 1);
}

TEST(JsonReader, RefusesWhatRapidJsonRefusesWithItsMessage) {
  const std::pair<std::string, std::string> cases[] = {
      {"", "invalid JSON at offset 0: The document is empty."},
      {"{\"a\":1,}", "invalid JSON at offset 7: Missing a name for object member."},
      {"[1,]", "invalid JSON at offset 3: Invalid value."},
      {"01", "invalid JSON at offset 1: The document root must not be followed by other values."},
      {"[1.]", "invalid JSON at offset 3: Miss fraction part in number."},
      {"[1e]", "invalid JSON at offset 3: Miss exponent in number."},
      {"[1e400]", "invalid JSON at offset 1: Number too big to be stored in double."},
      {"[\"\\ud800x\"]", "invalid JSON at offset 2: The surrogate pair in string is invalid."},
      {"[\"\\x\"]", "invalid JSON at offset 2: Invalid escape character in string."},
      {"[\"a", "invalid JSON at offset 3: Missing a closing quotation mark in string."},
      {"[tru]", "invalid JSON at offset 4: Invalid value."},
      {"{\"a\" 1}", "invalid JSON at offset 5: Missing a colon after a name of object member."},
      {"[NaN]", "invalid JSON at offset 1: Invalid value."},
      {"[1] x",
       "invalid JSON at offset 4: The document root must not be followed by other values."},
  };
  for (const auto& [text, message] : cases) {
    const Read r(text);
    EXPECT_EQ(r.failure, JsonReader::Failure::syntax) << text;
    const auto error = json_syntax_error(r.text, 512);
    ASSERT_TRUE(error.has_value()) << text;
    EXPECT_EQ(error->message, message) << text;
    EXPECT_FALSE(error->too_deep);
  }
}

TEST(JsonReader, NestingPastTheBoundIsTooDeepForBoth) {
  const std::string at_bound = std::string(4, '[') + std::string(4, ']');
  EXPECT_EQ(Read(at_bound, 4).failure, JsonReader::Failure::none);
  EXPECT_FALSE(json_syntax_error(at_bound, 4).has_value());
  const std::string past = std::string(5, '[') + std::string(5, ']');
  EXPECT_EQ(Read(past, 4).failure, JsonReader::Failure::too_deep);
  const auto error = json_syntax_error(past, 4);
  ASSERT_TRUE(error.has_value());
  EXPECT_TRUE(error->too_deep);
  EXPECT_EQ(error->message, "request body nests JSON deeper than 4 levels");
}

TEST(JsonReader, KeysKeptOrPassedOverMemberByMember) {
  const std::string text = R"({"keep": [1, "two"], "drop": {"deep": ["\u0041", 1e5]}, "x": true})";
  const auto strings = std::make_unique<char[]>(text.size() + 1);
  rapidjson::Document doc;
  JsonReader in(text, strings.get(), doc, 512);
  auto generate = [&in](rapidjson::Document& d) {
    if (!in.consume('{') || !d.StartObject())
      return false;
    rapidjson::SizeType kept = 0;
    do {
      std::string_view key;
      if (!in.read_key(key))
        return false;
      if (key == "drop") {
        if (!in.skip_member_value(1))
          return false;
        continue;
      }
      if (!in.keep_key(key) || !in.consume(':') || !in.value(true, 1))
        return false;
      ++kept;
    } while (in.consume(','));
    return in.consume('}') && d.EndObject(kept);
  };
  doc.Populate(generate);
  ASSERT_EQ(in.failure(), JsonReader::Failure::none);
  rapidjson::Document expected;
  expected.Parse(R"({"keep": [1, "two"], "x": true})");
  EXPECT_EQ(doc, expected);
  EXPECT_STREQ(doc.MemberBegin()->name.GetString(), "keep");
  EXPECT_STREQ((doc.MemberBegin() + 1)->name.GetString(), "x");
}

}  // namespace
}  // namespace hami::extender
