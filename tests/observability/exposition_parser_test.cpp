// The test-side parser must itself be strict, or the tests that rely on it
// prove nothing: every malformed input below is rejected.
#include "exposition_parser.hpp"

#include <gtest/gtest.h>

namespace {

using hami::testing::parse_exposition;
using hami::testing::ParseError;

TEST(StrictParser, AcceptsWellFormedText) {
  const auto parsed = parse_exposition(
      "# HELP g a \\\\ help\\n\n# TYPE g gauge\ng{a=\"x\\\"y\\\\z\\n\"} -1.5e+03\ng{a=\"w\"} NaN\n"
      "# TYPE c counter\nc 3\n"
      "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_sum 3\nh_count 2\n");
  ASSERT_EQ(parsed.families.size(), 3u);
  EXPECT_EQ(parsed.families[0].help, "a \\ help\n");
  EXPECT_EQ(parsed.value("g", {{"a", "x\"y\\z\n"}}), -1500);
  EXPECT_EQ(parsed.value("h_count"), 2);
}

TEST(StrictParser, RejectsMalformedInput) {
  const char* bad[] = {
      "g 1",                                                         // no final newline
      "# TYPE g gauge\n\ng 1\n",                                     // empty line
      "# comment\n",                                                 // stray comment
      "g 1\n",                                                       // no TYPE
      "# TYPE g gauge\ng{a=\"x\"} 1\ng{a=\"x\"} 2\n",                // duplicate series
      "# TYPE g gauge\ng{a=\"x\",} 1\n",                             // trailing comma
      "# TYPE g gauge\ng{a=\"x\\t\"} 1\n",                           // unknown escape
      "# TYPE g gauge\ng{a=\"x} 1\n",                                // unterminated value
      "# TYPE g gauge\ng{a=\"\xFF\"} 1\n",                           // invalid UTF-8
      "# TYPE g gauge\ng{a=\"x\",a=\"y\"} 1\n",                      // repeated label
      "# TYPE g gauge\ng{__a=\"x\"} 1\n",                            // reserved label
      "# TYPE g gauge\ng{1a=\"x\"} 1\n",                             // bad label name
      "# TYPE g gauge\ng 0x10\n",                                    // hex value
      "# TYPE g gauge\ng inf\n",                                     // lowercase infinity
      "# TYPE g gauge\ng  1\n",                                      // double space
      "# TYPE g gauge\n# TYPE g gauge\ng 1\n",                       // second TYPE
      "# TYPE g gauge\ng 1\n# HELP g late\n# HELP g x\n",            // second HELP
      "# TYPE g gauge\ng 1\n# TYPE x gauge\nx 1\n# TYPE g gauge\n",  // not contiguous
      "# TYPE g gauge\ng{le=\"1\"} 1\n",                             // le outside a histogram
      "# TYPE c counter\nc -1\n",                                    // negative counter
      "# TYPE g wrong\ng 1\n",                                       // unknown type
      "# HELP g bad \\q escape\n# TYPE g gauge\ng 1\n",              // bad HELP escape
      "# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n",
      "# TYPE h histogram\nh_bucket{le=\"2\"} 1\nh_bucket{le=\"1\"} 1\n"
      "h_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n",
      "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n",  // no +Inf
      "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_sum 1\nh_count 1\n",
      "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n",  // no _sum
      "# TYPE h histogram\nh_total 1\n",                           // foreign sample
  };
  for (const char* text : bad)
    EXPECT_THROW(parse_exposition(text), ParseError) << text;
}

}  // namespace
