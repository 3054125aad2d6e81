// The host logger's line formats.
#include "log/logger.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <sstream>

namespace hami::test {
namespace {

TEST(Logger, TextLine) {
  log::Logger logger(log::Level::debug, log::Format::text);
  EXPECT_EQ(logger.format_line("2026-01-02T03:04:05.006Z", log::Level::warn, "plugin loaded",
                               {{"name", "nvidia"}, {"file", "/a b/c.so"}, {"empty", ""}}),
            "2026-01-02T03:04:05.006Z warn msg=\"plugin loaded\" name=nvidia file=\"/a b/c.so\" "
            "empty=\"\"\n");
}

TEST(Logger, TextEscapesQuotesAndControlCharacters) {
  log::Logger logger;
  EXPECT_EQ(
      logger.format_line("T", log::Level::info, "m", {{"k", "say \"hi\"\n\\"}, {"c", "\x01"}}),
      "T info msg=m k=\"say \\\"hi\\\"\\n\\\\\" c=\"\\x01\"\n");
}

TEST(Logger, JsonLine) {
  log::Logger logger(log::Level::info, log::Format::json);
  EXPECT_EQ(
      logger.format_line("T", log::Level::error, "start failed", {{"error", "a \"b\""}}),
      "{\"ts\":\"T\",\"level\":\"error\",\"msg\":\"start failed\",\"error\":\"a \\\"b\\\"\"}\n");
}

TEST(Logger, LevelFiltersAndEachEventIsOneLine) {
  std::ostringstream out;
  log::Logger logger(log::Level::info, log::Format::text, &out);
  logger.debug("hidden");
  logger.info("shown", {{"k", "v"}});
  logger.set_level(log::Level::error);
  logger.warn("hidden too");
  logger.error("also shown");
  const std::string text = out.str();
  const std::regex line(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z info msg=shown k=v\n)"
                        R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z error msg="also shown"\n)");
  EXPECT_TRUE(std::regex_match(text, line)) << text;
}

TEST(Logger, ParsesLevelsAndFormats) {
  EXPECT_EQ(log::parse_level("warn"), log::Level::warn);
  EXPECT_FALSE(log::parse_level("WARN").has_value());
  EXPECT_EQ(log::parse_format("json"), log::Format::json);
  EXPECT_FALSE(log::parse_format("yaml").has_value());
}

}  // namespace
}  // namespace hami::test
