// The text exposition encoder: Go-compatible value formatting, escaping,
// ordering and normalization.
#include "observability/exposition.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "exposition_parser.hpp"

namespace {

using namespace hami::observability;
using hami::testing::parse_exposition;

MetricFamily gauge(std::string name, std::vector<std::string> labels) {
  MetricFamily f;
  f.name = std::move(name);
  f.help = "help of " + f.name;
  f.type = MetricType::gauge;
  f.label_names = std::move(labels);
  return f;
}

TEST(FormatValue, MatchesGoStrconvShortestG) {
  EXPECT_EQ(format_value(0), "0");
  EXPECT_EQ(format_value(-0.0), "0");
  EXPECT_EQ(format_value(1), "1");
  EXPECT_EQ(format_value(-1), "-1");
  EXPECT_EQ(format_value(0.5), "0.5");
  EXPECT_EQ(format_value(100), "100");
  EXPECT_EQ(format_value(123456), "123456");
  EXPECT_EQ(format_value(1234567), "1.234567e+06");
  EXPECT_EQ(format_value(1e6), "1e+06");
  EXPECT_EQ(format_value(3000.0 * 1048576), "3.145728e+09");
  EXPECT_EQ(format_value(32768.0 * 1048576), "3.4359738368e+10");
  EXPECT_EQ(format_value(0.0001), "0.0001");
  EXPECT_EQ(format_value(0.00001), "1e-05");
  EXPECT_EQ(format_value(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(format_value(1e100), "1e+100");
  EXPECT_EQ(format_value(-2.5e-7), "-2.5e-07");
  EXPECT_EQ(format_value(0.0005), "0.0005");
  EXPECT_EQ(format_value(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(format_value(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(format_value(-std::numeric_limits<double>::infinity()), "-Inf");
}

TEST(Escaping, LabelValuesEscapeBackslashQuoteAndNewline) {
  std::string out;
  append_label_value(out, "a\\b\"c\nd\te");
  EXPECT_EQ(out, "a\\\\b\\\"c\\nd\te");
}

TEST(Escaping, HelpEscapesBackslashAndNewlineButNotQuotes) {
  std::string out;
  append_help(out, "say \"hi\"\\\nbye");
  EXPECT_EQ(out, "say \"hi\"\\\\\\nbye");
}

TEST(Escaping, InvalidUtf8BecomesReplacementCharacter) {
  EXPECT_TRUE(is_valid_utf8("plain"));
  EXPECT_TRUE(is_valid_utf8("gpu-\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"));
  EXPECT_FALSE(is_valid_utf8("\xFF"));
  EXPECT_FALSE(is_valid_utf8("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));      // surrogate
  EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(is_valid_utf8("\xE2\x82"));          // truncated
  // One replacement per run of bad bytes; valid neighbours kept.
  EXPECT_EQ(to_valid_utf8("a\xFF\xFE"
                          "b\xC3"),
            "a\xEF\xBF\xBD"
            "b\xEF\xBF\xBD");
  std::string out;
  append_label_value(out, "pod-\xFF\"x");
  EXPECT_EQ(out, "pod-\xEF\xBF\xBD\\\"x");
}

TEST(Encode, ExactTextSortedByFamilyLabelAndValues) {
  MetricFamily b = gauge("b_metric", {"zeta", "alpha"});
  b.add({"z2", "a1"}, 2);
  b.add({"z1", "a2"}, 1);
  b.add({"z0", "a1"}, 0.25);
  b.const_labels = {{"middle", "m"}};
  MetricFamily a = gauge("a_metric", {});
  a.help = "line one\nline \\two";
  a.add({}, 1e6);
  std::vector<std::string> problems;
  const std::string text = encode_text_normalized({b, a}, &problems);
  EXPECT_TRUE(problems.empty());
  EXPECT_EQ(text,
            "# HELP a_metric line one\\nline \\\\two\n"
            "# TYPE a_metric gauge\n"
            "a_metric 1e+06\n"
            "# HELP b_metric help of b_metric\n"
            "# TYPE b_metric gauge\n"
            "b_metric{alpha=\"a1\",middle=\"m\",zeta=\"z0\"} 0.25\n"
            "b_metric{alpha=\"a1\",middle=\"m\",zeta=\"z2\"} 2\n"
            "b_metric{alpha=\"a2\",middle=\"m\",zeta=\"z1\"} 1\n");
  EXPECT_NO_THROW(parse_exposition(text));
}

TEST(Encode, HistogramBucketsSumAndCount) {
  MetricFamily h;
  h.name = "req_seconds";
  h.help = "latency";
  h.type = MetricType::histogram;
  h.label_names = {"route"};
  Series s;
  s.label_values = {"/filter"};
  s.buckets = {{0.005, 1}, {0.1, 3}};
  s.sum = 0.75;
  s.count = 4;
  h.series.push_back(s);
  EXPECT_EQ(encode_text_normalized({h}),
            "# HELP req_seconds latency\n"
            "# TYPE req_seconds histogram\n"
            "req_seconds_bucket{route=\"/filter\",le=\"0.005\"} 1\n"
            "req_seconds_bucket{route=\"/filter\",le=\"0.1\"} 3\n"
            "req_seconds_bucket{route=\"/filter\",le=\"+Inf\"} 4\n"
            "req_seconds_sum{route=\"/filter\"} 0.75\n"
            "req_seconds_count{route=\"/filter\"} 4\n");
}

TEST(Normalize, DropsDuplicateSeriesKeepingTheFirst) {
  MetricFamily f = gauge("dup", {"pod"});
  f.add({"p"}, 1);
  f.add({"q"}, 3);
  f.add({"p"}, 2);
  std::vector<std::string> problems;
  const std::string text = encode_text_normalized({f}, &problems);
  EXPECT_EQ(text, "# HELP dup help of dup\n# TYPE dup gauge\ndup{pod=\"p\"} 1\ndup{pod=\"q\"} 3\n");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("1 duplicate series dropped"), std::string::npos);
}

TEST(Normalize, ValuesThatBecomeEqualAfterUtf8RepairAreDeduplicated) {
  MetricFamily f = gauge("pods", {"pod"});
  f.add({"a\xFF"}, 1);
  f.add({"a\xFE"}, 2);
  std::vector<std::string> problems;
  const auto parsed = parse_exposition(encode_text_normalized({f}, &problems));
  EXPECT_EQ(parsed.value("pods", {{"pod", "a\xEF\xBF\xBD"}}), 1);
  EXPECT_EQ(problems.size(), 1u);
}

TEST(Normalize, InvalidFamiliesAreDroppedAndNamed) {
  MetricFamily bad_name = gauge("0bad", {});
  bad_name.add({}, 1);
  MetricFamily bad_label = gauge("bad_label", {"__reserved"});
  bad_label.add({"x"}, 1);
  MetricFamily dup_label = gauge("dup_label", {"a"});
  dup_label.const_labels = {{"a", "b"}};
  dup_label.add({"x"}, 1);
  MetricFamily wrong_count = gauge("wrong_count", {"a", "b"});
  wrong_count.add({"x"}, 1);
  MetricFamily good = gauge("good", {});
  good.add({}, 1);
  std::vector<std::string> problems;
  const std::string text =
      encode_text_normalized({bad_name, bad_label, dup_label, wrong_count, good}, &problems);
  EXPECT_EQ(text, "# HELP good help of good\n# TYPE good gauge\ngood 1\n");
  EXPECT_EQ(problems.size(), 4u);
}

TEST(Normalize, SameNameMergesWhenCompatibleElseKeepsTheFirst) {
  MetricFamily a = gauge("m", {"x"});
  a.add({"1"}, 1);
  MetricFamily b = gauge("m", {"x"});
  b.add({"2"}, 2);
  MetricFamily c = gauge("m", {"y"});
  c.add({"3"}, 3);
  std::vector<std::string> problems;
  const std::string text = encode_text_normalized({a, b, c}, &problems);
  EXPECT_EQ(text, "# HELP m help of m\n# TYPE m gauge\nm{x=\"1\"} 1\nm{x=\"2\"} 2\n");
  EXPECT_EQ(problems.size(), 1u);
}

TEST(Normalize, HistogramSeriesNamesAreReserved) {
  MetricFamily h;
  h.name = "lat";
  h.type = MetricType::histogram;
  Series s;
  s.count = 0;
  h.series.push_back(s);
  MetricFamily clash = gauge("lat_count", {});
  clash.add({}, 1);
  std::vector<std::string> problems;
  const auto parsed = parse_exposition(encode_text_normalized({h, clash}, &problems));
  EXPECT_EQ(parsed.families.size(), 1u);
  EXPECT_EQ(problems.size(), 1u);
}

TEST(Normalize, HistogramWithDecreasingBucketsIsRejected) {
  MetricFamily h;
  h.name = "lat";
  h.type = MetricType::histogram;
  Series s;
  s.buckets = {{1, 5}, {2, 3}};
  s.count = 5;
  h.series.push_back(s);
  std::vector<std::string> problems;
  EXPECT_EQ(encode_text_normalized({h}, &problems), "");
  EXPECT_EQ(problems.size(), 1u);
}

TEST(Normalize, EmptyFamiliesAreOmitted) {
  EXPECT_EQ(encode_text_normalized({gauge("empty", {"a"})}), "");
}

}  // namespace
