// HAMi's generic node handshake (§3.3), as pure logic over the current
// annotation value: the scheduler stamps `Requesting_<YYYY-MM-DD HH:MM:SS>`
// and, once the stamp is older than 60 s, judges the node by its allocatable
// device count.
//
// Times are formatted and parsed in the process's local time zone, as HAMi
// does (time.DateTime via time.Now()); nodes stamped by a HAMi scheduler in
// the same zone therefore keep their state across the switch.
#ifndef HAMI_DEVICES_COMMON_HANDSHAKE_HPP
#define HAMI_DEVICES_COMMON_HANDSHAKE_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hami::devices {

inline constexpr std::int64_t kHandshakeTimeoutSeconds = 60;

struct HandshakeResult {
  bool healthy = true;
  bool needs_update = false;
  // Set when the annotation must be (re)written to this value.
  std::optional<std::string> stamp;
};

// `annotation`: the handshake annotation's value (nullopt when absent);
// `allocatable_positive`: status.allocatable[<count resource>] > 0.
HandshakeResult check_handshake(std::optional<std::string_view> annotation, std::int64_t now_unix,
                                bool allocatable_positive);

// "Requesting_" + local time of `unix` as YYYY-MM-DD HH:MM:SS.
std::string handshake_stamp(std::int64_t unix_seconds);

// Parses YYYY-MM-DD HH:MM:SS as local time; nullopt when malformed.
std::optional<std::int64_t> parse_local_datetime(std::string_view text);

}  // namespace hami::devices

#endif  // HAMI_DEVICES_COMMON_HANDSHAKE_HPP
