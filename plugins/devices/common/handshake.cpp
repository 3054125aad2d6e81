#include "handshake.hpp"

#include <cstdio>
#include <ctime>

namespace hami::devices {
namespace {

bool digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
  int v = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9')
      return false;
    v = v * 10 + (s[i] - '0');
  }
  out = v;
  return true;
}

int days_in_month(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

}  // namespace

std::optional<std::int64_t> parse_local_datetime(std::string_view s) {
  // Exactly Go's time.DateTime layout "2006-01-02 15:04:05".
  if (s.size() != 19 || s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[13] != ':' ||
      s[16] != ':') {
    return std::nullopt;
  }
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!digits(s, 0, 4, year) || !digits(s, 5, 2, month) || !digits(s, 8, 2, day) ||
      !digits(s, 11, 2, hour) || !digits(s, 14, 2, minute) || !digits(s, 17, 2, second)) {
    return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month) || hour > 23 ||
      minute > 59 || second > 59) {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  tm.tm_isdst = -1;  // let the zone rules decide
  const std::time_t t = std::mktime(&tm);
  if (t == static_cast<std::time_t>(-1))
    return std::nullopt;
  return static_cast<std::int64_t>(t);
}

std::string handshake_stamp(std::int64_t unix_seconds) {
  const auto t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[96];  // room for any int year the compiler can imagine
  std::snprintf(buf, sizeof buf, "Requesting_%04d-%02d-%02d %02d:%02d:%02d", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

HandshakeResult check_handshake(std::optional<std::string_view> annotation, std::int64_t now_unix,
                                bool allocatable_positive) {
  HandshakeResult r;
  const std::string_view value = annotation.value_or(std::string_view{});
  if (value.find("Requesting") != std::string_view::npos) {
    const std::size_t underscore = value.find('_');
    if (underscore == std::string_view::npos)
      return r;  // healthy, nothing to do
    // Go: strings.Split(v, "_")[1] — the text up to a second '_', if any.
    std::string_view stamp = value.substr(underscore + 1);
    stamp = stamp.substr(0, stamp.find('_'));
    const auto when = parse_local_datetime(stamp);
    if (!when)
      return r;
    if (now_unix - *when < kHandshakeTimeoutSeconds)
      return r;
    r.healthy = allocatable_positive;
    return r;
  }
  r.stamp = handshake_stamp(now_unix);
  r.needs_update = true;
  return r;
}

}  // namespace hami::devices
