// skip_member_value: where it stops in valid JSON, that the reader agrees
// with everything it accepts, and what it leaves to the reader.
#include "extender/json_skip.hpp"

#include <gtest/gtest.h>
#include <rapidjson/reader.h>
#include <rapidjson/stream.h>

#include <string>
#include <vector>

#include "k8s/json_depth.hpp"

namespace {

using hami::extender::skip_member_value;

// The offset in `text` where the skip stops, or -1 when it leaves the
// member to the reader. `text` starts just after a key.
long skip(const std::string& text, std::size_t budget = hami::k8s::kMaxJsonDepth) {
  const char* stop = skip_member_value(text.c_str(), text.c_str() + text.size(), budget);
  return stop == nullptr ? -1 : stop - text.c_str();
}

// How many characters of `value` RapidJSON's default reader takes as one
// value, or -1 when it finds an error.
long reader_takes(const std::string& value) {
  rapidjson::StringStream in(value.c_str());
  rapidjson::BaseReaderHandler<> ignore;
  rapidjson::Reader reader;
  if (reader.Parse<rapidjson::kParseStopWhenDoneFlag>(in, ignore).IsError())
    return -1;
  return static_cast<long>(in.Tell());
}

struct Case {
  std::string before;  // whitespace, the colon, whitespace
  std::string value;
};

const std::vector<Case>& valid_cases() {
  static const std::vector<Case> cases = {
      {":", "1"},
      {" : ", "0"},
      {"\t\n\r:\r\n\t ", "-0"},
      {":", "-12.5"},
      {":", "123456789012345678"},
      {":", "0.123456789012345678"},
      {":", "true"},
      {":", "false"},
      {":", "null"},
      {":", R"("")"},
      {":", R"("plain text")"},
      {":", R"("\" \\ \/ \b \f \n \r \t")"},
      {":", "\"caf\xc3\xa9 \xe2\x82\xac\""},
      {":", "{}"},
      {":", "[]"},
      {":", "{ }"},
      {":", "[\n]"},
      {":", R"({"a":1})"},
      {":", R"({ "a" : [ 1 , 2 , { "b" : null } ] , "c" : true , "d" : { } })"},
      {":", R"([[],[[]],{},[{}],"x",-1,false])"},
      {":", R"([{"names":["registry.k8s.io/pause:3.9"],"sizeBytes":321}])"},
      {":",
       R"({"type":"Ready","status":"True","reason":"KubeletReady","message":"kubelet is posting ready status"})"},
  };
  return cases;
}

TEST(JsonSkip, StopsRightAfterTheValue) {
  for (const auto& c : valid_cases()) {
    for (const std::string rest : {",\"next\":1}", "}", " ,", "\n}"}) {
      const std::string text = c.before + c.value + rest;
      EXPECT_EQ(skip(text), static_cast<long>(c.before.size() + c.value.size())) << text;
    }
  }
}

TEST(JsonSkip, TheReaderTakesExactlyWhatWasSkipped) {
  for (const auto& c : valid_cases()) {
    const std::string text = c.before + c.value + ",";
    const long stop = skip(text);
    ASSERT_GT(stop, 0) << text;
    const std::string value =
        text.substr(c.before.size(), static_cast<std::size_t>(stop) - c.before.size());
    EXPECT_EQ(reader_takes(value), static_cast<long>(value.size())) << value;
  }
}

TEST(JsonSkip, LeavesToTheReaderWhatItCannotVouchFor) {
  const std::vector<std::string> refused = {
      // no colon, or not one value after it
      "",
      "1",
      " 1",
      "::1",
      ":",
      ": ",
      ":,",
      ":}",
      // strings: \u escapes (the reader's surrogate rules), invalid escapes,
      // control characters, no closing quote
      R"(:"\u0041")",
      R"(:"\x")",
      ":\"a\x01\"",
      ":\"tab\there\"",
      R"(:"open)",
      ":\"\\",
      // numbers the reader may judge differently, or that are invalid
      ":1e5",
      ":1.5E3",
      ":1234567890123456789",
      ":0.1234567890123456789",
      ":01",
      ":-",
      ":1.",
      ":.5",
      ":+1",
      ":-a",
      ":NaN",
      ":Infinity",
      // literals
      ":tru",
      ":nul",
      ":True",
      // containers
      ":[1,]",
      R"(:{"a":1,})",
      ":{,}",
      R"(:{"a" 1})",
      R"(:{"a":})",
      ":[1 2]",
      R"(:{"a":1])",
      ":[1}",
      ":{1:2}",
      ":[",
      R"(:{"a":1)",
      ":[[]",
      ":/*c*/1",
      ":{'a':1}",
  };
  for (const std::string& text : refused)
    EXPECT_EQ(skip(text), -1) << text;
  // What follows a complete member value is the reader's to judge, where
  // it stands.
  EXPECT_EQ(skip(":falsey"), 6);
  EXPECT_EQ(skip(":nulll"), 5);
  EXPECT_EQ(skip(":0x10"), 2);
  EXPECT_EQ(skip(":[1]]"), 4);
}

TEST(JsonSkip, KeepsWithinTheDepthBudget) {
  EXPECT_EQ(skip(":1", 0), 2);
  EXPECT_EQ(skip(":\"s\"", 0), 4);
  EXPECT_EQ(skip(":[]", 0), -1);
  EXPECT_EQ(skip(":[[[1]]]", 3), 8);
  EXPECT_EQ(skip(":[[[[1]]]]", 3), -1);
  EXPECT_EQ(skip(R"(:{"a":{"b":[{}]}})", 4), 17);
  EXPECT_EQ(skip(R"(:{"a":{"b":[{}]}})", 3), -1);
  const std::size_t max = hami::k8s::kMaxJsonDepth;
  const std::string deepest = ":" + std::string(max, '[') + std::string(max, ']');
  EXPECT_EQ(skip(deepest), static_cast<long>(deepest.size()));
  EXPECT_EQ(skip(":" + std::string(max + 1, '[') + std::string(max + 1, ']')), -1);
  EXPECT_EQ(skip(":" + std::string(100000, '[')), -1);
}

// Strings are scanned a block at a time: put escapes, quotes and the end of
// the text at every offset around the block edges.
TEST(JsonSkip, StringsAtEveryOffset) {
  for (std::size_t at = 0; at < 40; ++at) {
    for (const char* special : {"", "\\\"", "\\\\", "\\n\\/", "\xc3\xa9", "\\\"\\\"\\\\\\\""}) {
      const std::string value =
          "\"" + std::string(at, 'x') + special + std::string(at % 5, 'y') + "\"";
      const std::string text = ":" + value;
      EXPECT_EQ(skip(text), static_cast<long>(text.size())) << text;
      EXPECT_EQ(reader_takes(value), static_cast<long>(value.size())) << value;
      // Cut before the closing quote: the NUL ends the text inside the string.
      EXPECT_EQ(skip(text.substr(0, text.size() - 1)), -1) << text;
      for (const char* bad : {"\\u0041", "\\x", "\x1f"}) {
        const std::string broken = ":\"" + std::string(at, 'x') + special + bad + "\"";
        EXPECT_EQ(skip(broken), -1) << broken;
      }
    }
  }
}

}  // namespace
