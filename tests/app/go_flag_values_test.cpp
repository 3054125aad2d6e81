// Go's flag value syntaxes as HAMi's command line uses them: booleans
// (strconv.ParseBool), durations (time.ParseDuration, its overflow edges
// included), integers and numbers.
#include "app/go_flag_values.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace hami::test {
namespace {

using namespace std::chrono_literals;
using app::parse_go_bool;
using app::parse_go_duration;
using app::parse_go_float;
using app::parse_go_int;

TEST(GoBool, TakesStrconvSpellingsOnly) {
  for (const char* yes : {"1", "t", "T", "TRUE", "true", "True"})
    EXPECT_EQ(parse_go_bool(yes), true) << yes;
  for (const char* no : {"0", "f", "F", "FALSE", "false", "False"})
    EXPECT_EQ(parse_go_bool(no), false) << no;
  for (const char* bad : {"", "yes", "no", "on", "tRUE", "2", " true", "true "})
    EXPECT_FALSE(parse_go_bool(bad).has_value()) << bad;
}

TEST(GoDuration, TheChartsAndHamisDefaults) {
  EXPECT_EQ(parse_go_duration("5m"), 5min);
  EXPECT_EQ(parse_go_duration("28s"), 28s);
  EXPECT_EQ(parse_go_duration("1h30m"), 90min);
  EXPECT_EQ(parse_go_duration("0"), 0ns);
  EXPECT_EQ(parse_go_duration("-0"), 0ns);
  EXPECT_EQ(parse_go_duration("+0"), 0ns);
}

TEST(GoDuration, EveryUnitFractionAndSign) {
  EXPECT_EQ(parse_go_duration("300ms"), 300ms);
  EXPECT_EQ(parse_go_duration("7ns"), 7ns);
  EXPECT_EQ(parse_go_duration("3us"), 3us);
  EXPECT_EQ(parse_go_duration("3\xc2\xb5s"), 3us);  // U+00B5 micro sign
  EXPECT_EQ(parse_go_duration("3\xce\xbcs"), 3us);  // U+03BC Greek mu
  EXPECT_EQ(parse_go_duration("2h"), 2h);
  EXPECT_EQ(parse_go_duration("1.5h"), 90min);
  EXPECT_EQ(parse_go_duration(".5s"), 500ms);
  EXPECT_EQ(parse_go_duration("1.s"), 1s);
  EXPECT_EQ(parse_go_duration("1h2m3s4ms5us6ns"), 1h + 2min + 3s + 4ms + 5us + 6ns);
  EXPECT_EQ(parse_go_duration("-1.5h"), -90min);
  EXPECT_EQ(parse_go_duration("+28s"), 28s);
  EXPECT_EQ(parse_go_duration("0s"), 0ns);
  EXPECT_EQ(parse_go_duration("1.0000000000000000000001s"), 1s);  // extra digits dropped
}

TEST(GoDuration, RefusesWhatGoRefuses) {
  for (const char* bad :
       {"",   "-",  "5",    "28",   "s",    ".",    ".s",    "5 m",  " 5m",   "5m ",
        "5x", "5M", "5min", "1h30", "--5m", "+-5m", "5m-3s", "1e3s", "0x10s", "five"}) {
    EXPECT_FALSE(parse_go_duration(bad).has_value()) << '"' << bad << '"';
  }
}

TEST(GoDuration, Int64NanosecondsAtMost) {
  // 2^63-1 ns is Go's largest Duration; -2^63 ns its smallest.
  EXPECT_EQ(parse_go_duration("9223372036854775807ns"),
            std::chrono::nanoseconds(std::numeric_limits<int64_t>::max()));
  EXPECT_EQ(parse_go_duration("-9223372036854775808ns"),
            std::chrono::nanoseconds(std::numeric_limits<int64_t>::min()));
  EXPECT_FALSE(parse_go_duration("9223372036854775808ns").has_value());
  EXPECT_FALSE(parse_go_duration("2562048h").has_value());  // > 292 years
  EXPECT_FALSE(parse_go_duration("99999999999999999999s").has_value());
  EXPECT_EQ(parse_go_duration("2562047h"), std::chrono::hours(2562047));
}

TEST(GoInt, DecimalWithSign) {
  EXPECT_EQ(parse_go_int("10"), 10);
  EXPECT_EQ(parse_go_int("+10"), 10);
  EXPECT_EQ(parse_go_int("-3"), -3);
  EXPECT_EQ(parse_go_int("0"), 0);
  for (const char* bad :
       {"", "+", "-", "1.5", "10x", " 1", "1 ", "+-1", "++1", "99999999999999999999"})
    EXPECT_FALSE(parse_go_int(bad).has_value()) << bad;
}

TEST(GoFloat, FiniteNumbersOnly) {
  EXPECT_EQ(parse_go_float("5"), 5.0);
  EXPECT_EQ(parse_go_float("2.5"), 2.5);
  EXPECT_EQ(parse_go_float("+2.5"), 2.5);
  EXPECT_EQ(parse_go_float("-1"), -1.0);
  EXPECT_EQ(parse_go_float("1e3"), 1000.0);
  for (const char* bad : {"", "abc", "1,5", "inf", "nan", "1e999", "5 ", "+-1"})
    EXPECT_FALSE(parse_go_float(bad).has_value()) << bad;
}

}  // namespace
}  // namespace hami::test
