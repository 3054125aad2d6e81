#include "log/logger.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>

namespace hami::log {

std::optional<Level> parse_level(std::string_view text) {
  if (text == "debug")
    return Level::debug;
  if (text == "info")
    return Level::info;
  if (text == "warn")
    return Level::warn;
  if (text == "error")
    return Level::error;
  return std::nullopt;
}

std::string_view level_name(Level level) {
  switch (level) {
    case Level::debug:
      return "debug";
    case Level::info:
      return "info";
    case Level::warn:
      return "warn";
    case Level::error:
      return "error";
  }
  return "info";
}

std::optional<Format> parse_format(std::string_view text) {
  if (text == "text")
    return Format::text;
  if (text == "json")
    return Format::json;
  return std::nullopt;
}

std::string utc_timestamp() {
  using namespace std::chrono;
  const auto now = system_clock::now();
  const auto secs = floor<seconds>(now);
  const auto millis = duration_cast<milliseconds>(now - secs).count();
  const std::time_t t = system_clock::to_time_t(secs);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char frac[8];
  std::snprintf(frac, sizeof frac, ".%03dZ", static_cast<int>(millis));
  return std::string(buf, n) + frac;
}

namespace {

// Text values are quoted only when needed, so grep-friendly values such as
// addresses stay bare while messages with spaces stay one token.
bool needs_quotes(std::string_view value) {
  if (value.empty())
    return true;
  for (const char c : value) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || c == '"' || c == '=' || c == '\\' || u == 0x7f)
      return true;
  }
  return false;
}

void append_text_value(std::string& line, std::string_view value) {
  if (!needs_quotes(value)) {
    line += value;
    return;
  }
  line += '"';
  for (const char c : value) {
    switch (c) {
      case '"':
        line += "\\\"";
        break;
      case '\\':
        line += "\\\\";
        break;
      case '\n':
        line += "\\n";
        break;
      case '\r':
        line += "\\r";
        break;
      case '\t':
        line += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char esc[8];
          std::snprintf(esc, sizeof esc, "\\x%02x",
                        static_cast<unsigned>(static_cast<unsigned char>(c)));
          line += esc;
        } else {
          line += c;
        }
    }
  }
  line += '"';
}

}  // namespace

Logger::Logger(Level level, Format format, std::ostream* out)
    : level_(level), format_(format), out_(out != nullptr ? out : &std::cerr) {}

void Logger::set_level(Level level) {
  level_.store(level, std::memory_order_relaxed);
}
void Logger::set_format(Format format) {
  format_.store(format, std::memory_order_relaxed);
}
Level Logger::level() const {
  return level_.load(std::memory_order_relaxed);
}

std::string Logger::format_line(std::string_view timestamp, Level level, std::string_view message,
                                const Fields& fields) const {
  if (format_.load(std::memory_order_relaxed) == Format::json) {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    const auto str = [&w](std::string_view s) {
      w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
    };
    w.StartObject();
    str("ts");
    str(timestamp);
    str("level");
    str(level_name(level));
    str("msg");
    str(message);
    for (const auto& f : fields) {
      str(f.key);
      str(f.value);
    }
    w.EndObject();
    std::string line(buf.GetString(), buf.GetSize());
    line += '\n';
    return line;
  }
  std::string line;
  line.reserve(64 + message.size() + fields.size() * 24);
  line += timestamp;
  line += ' ';
  line += level_name(level);
  line += " msg=";
  append_text_value(line, message);
  for (const auto& f : fields) {
    line += ' ';
    line += f.key;
    line += '=';
    append_text_value(line, f.value);
  }
  line += '\n';
  return line;
}

void Logger::write(Level level, std::string_view message, const Fields& fields) const {
  if (!enabled(level))
    return;
  const std::string line = format_line(utc_timestamp(), level, message, fields);
  const std::lock_guard lock(mutex_);
  out_->write(line.data(), static_cast<std::streamsize>(line.size()));
  out_->flush();
}

std::string milliseconds_text(std::chrono::nanoseconds elapsed) {
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count();
  const auto whole = micros / 1000;
  const auto frac = micros % 1000;
  std::string out = std::to_string(whole) + ".";
  const std::string digits = std::to_string(frac < 0 ? -frac : frac);
  out.append(3 - digits.size(), '0');
  return out + digits;
}

}  // namespace hami::log
