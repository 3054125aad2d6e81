// The host logger: one line per event, ISO-8601 UTC timestamp, level, a
// message and key=value fields, written with a single write so concurrent
// events never interleave. Two formats: human-readable text and JSON lines.
//
// A Logger is an ordinary object owned by the application and passed by
// reference; it is safe to use from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <iosfwd>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hami::log {

enum class Level { debug = 0, info = 1, warn = 2, error = 3 };
enum class Format { text, json };

// "debug", "info", "warn", "error" ↔ Level; nullopt for anything else.
std::optional<Level> parse_level(std::string_view text);
std::string_view level_name(Level level);
// "text", "json" ↔ Format.
std::optional<Format> parse_format(std::string_view text);

// One key=value pair of an event. Values are always text; callers convert.
struct Field {
  std::string key;
  std::string value;
};
using Fields = std::vector<Field>;

class Logger {
 public:
  // `out` must outlive the logger; defaults to std::cerr.
  explicit Logger(Level level = Level::info, Format format = Format::text,
                  std::ostream* out = nullptr);

  void set_level(Level level);
  void set_format(Format format);
  Level level() const;
  bool enabled(Level level) const { return level >= level_.load(std::memory_order_relaxed); }

  // Writes one event when `level` is enabled. `message` is a short fixed
  // phrase ("listening", "plugin loaded"); variable data goes in fields.
  void write(Level level, std::string_view message, const Fields& fields = {}) const;

  void debug(std::string_view message, const Fields& fields = {}) const {
    write(Level::debug, message, fields);
  }
  void info(std::string_view message, const Fields& fields = {}) const {
    write(Level::info, message, fields);
  }
  void warn(std::string_view message, const Fields& fields = {}) const {
    write(Level::warn, message, fields);
  }
  void error(std::string_view message, const Fields& fields = {}) const {
    write(Level::error, message, fields);
  }

  // The line `write` would produce at `timestamp` (exposed for tests).
  std::string format_line(std::string_view timestamp, Level level, std::string_view message,
                          const Fields& fields) const;

 private:
  std::atomic<Level> level_;
  std::atomic<Format> format_;
  std::ostream* out_;
  mutable std::mutex mutex_;
};

// Current UTC time as 2026-01-31T12:34:56.789Z.
std::string utc_timestamp();

// A duration as milliseconds with microsecond precision, "0.412", "12.000":
// the value of the `duration_ms` field every timed event carries.
std::string milliseconds_text(std::chrono::nanoseconds elapsed);

}  // namespace hami::log
