// YAML → JSON typing of plugin config sections.
#include "config/yaml_json.hpp"

#include <gtest/gtest.h>

#include "../support/yaml_alias_bomb.hpp"
#include "config/config_error.hpp"

namespace hami::test {
namespace {

std::string convert(const std::string& yaml) {
  return config::yaml_to_json(YAML::Load(yaml), "f.yaml", "p");
}

TEST(YamlJson, PlainScalarsAreTyped) {
  EXPECT_EQ(convert("{a: 1, b: -2, c: 0x1F, d: 0o17, e: 1.5, f: 2e3, g: .5}"),
            R"({"a":1,"b":-2,"c":31,"d":15,"e":1.5,"f":2000.0,"g":0.5})");
  EXPECT_EQ(convert("{t: true, T: True, f: FALSE, n: null, m: ~, e: }"),
            R"({"t":true,"T":true,"f":false,"n":null,"m":null,"e":null})");
}

TEST(YamlJson, QuotedScalarsStayStrings) {
  EXPECT_EQ(convert(R"({a: "1", b: 'true', c: "null", d: "x\"y"})"),
            R"({"a":"1","b":"true","c":"null","d":"x\"y"})");
}

TEST(YamlJson, OtherPlainScalarsAreStrings) {
  EXPECT_EQ(convert("{a: yes, b: .inf, c: 1.2.3, d: nvidia.com/gpu, e: 12abc, f: +}"),
            R"({"a":"yes","b":".inf","c":"1.2.3","d":"nvidia.com/gpu","e":"12abc","f":"+"})");
}

TEST(YamlJson, FloatsBeyondADoublesRangeStayText) {
  // The writer refused infinity after opening the value, and the text was
  // then written as well: {"a":,"1e999"...
  EXPECT_EQ(convert("{a: 1e999, b: -14444E444456, c: 1e-999, d: 2}"),
            R"({"a":"1e999","b":"-14444E444456","c":0.0,"d":2})");
  EXPECT_EQ(convert("[1e999, 1.5]"), R"(["1e999",1.5])");
}

TEST(YamlJson, TaggedScalarsStayStrings) {
  EXPECT_EQ(convert("{a: !!str 5}"), R"({"a":"5"})");
}

TEST(YamlJson, NestedListsAndMaps) {
  EXPECT_EQ(convert("migProfileAllowlist:\n  - models: [A100]\n    profiles: [1g.5gb, 2g.10gb]\n"),
            R"({"migProfileAllowlist":[{"models":["A100"],"profiles":["1g.5gb","2g.10gb"]}]})");
}

TEST(YamlJson, IntegersBeyond64BitsBecomeNumbersOrText) {
  EXPECT_EQ(convert("{a: 18446744073709551615, b: 18446744073709551616}"),
            R"({"a":18446744073709551615,"b":18446744073709553000.0})");
}

TEST(YamlJson, RecursiveAliasIsRejected) {
  try {
    convert("a: &x {k: *x}\n");
    FAIL() << "expected ConfigError";
  } catch (const config::ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("f.yaml: p.a.k.k.k", 0), 0u) << msg;
    EXPECT_NE(msg.find(": nested deeper than 64 levels (or a recursive alias)"), std::string::npos)
        << msg;
  }
}

TEST(YamlJson, AliasExpansionIsBoundedByTheOutputSize) {
  // Nine levels of ten aliases each stand for 10^9 strings.
  const std::string yaml = testing::yaml_alias_bomb("");
  try {
    config::yaml_to_json(YAML::Load(yaml), "bomb.yaml", "p", 4096);
    FAIL();
  } catch (const config::ConfigError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("bomb.yaml: p.l", 0), 0U) << what;
    EXPECT_NE(what.find(": converts to more than 4096 bytes of JSON (aliases expanding?)"),
              std::string::npos)
        << what;
  }
  // The same shape two levels deep fits.
  EXPECT_EQ(config::yaml_to_json(YAML::Load("a: &a [1, 2]\nb: [*a, *a]\n"), "f", "", 4096),
            R"({"a":[1,2],"b":[[1,2],[1,2]]})");
  // The bound is on the whole output, the last node included.
  EXPECT_THROW(config::yaml_to_json(YAML::Load("s: abcdefghij"), "f", "", 10), config::ConfigError);
  EXPECT_EQ(config::yaml_to_json(YAML::Load("s: abcdefghij"), "f", "", 18),
            R"({"s":"abcdefghij"})");
}

TEST(YamlJson, NestingWithinTheLimitConverts) {
  std::string yaml;
  std::string json;
  for (int i = 0; i < 60; ++i) {
    yaml += "[";
    json += "[";
  }
  for (int i = 0; i < 60; ++i) {
    yaml += "]";
    json += "]";
  }
  EXPECT_EQ(convert("a: " + yaml + "\n"), "{\"a\":" + json + "}");
}

TEST(YamlJson, NonScalarKeysAreRejectedWithThePath) {
  try {
    convert("{a: {[1, 2]: x}}");
    FAIL() << "expected ConfigError";
  } catch (const config::ConfigError& e) {
    EXPECT_STREQ(e.what(), "f.yaml: p.a: mapping keys must be plain text to convert to JSON");
  }
}

}  // namespace
}  // namespace hami::test
