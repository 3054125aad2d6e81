// Listen addresses: parsing (shared by the config file and --listen), and
// which of them only the local machine can reach.
#pragma once

#include <optional>
#include <string_view>

#include "config/host_config.hpp"

namespace hami::config {

// "ADDR:PORT" → ListenAddress. ADDR is an IPv4 address or host name, or an
// IPv6 address in brackets ("[::1]:8443"); PORT is 0..65535. With
// `allow_any_host`, ":PORT" is accepted too (empty host). Returns nullopt
// for anything else.
std::optional<ListenAddress> parse_listen_address(std::string_view text,
                                                  bool allow_any_host = false);

// True for an address only this machine can connect to: IPv4 127.0.0.0/8,
// IPv6 ::1 (also as ::ffff:127.x.y.z) and the name "localhost". Any other
// name, the empty host and the wildcard addresses are not loopback.
bool is_loopback(const ListenAddress& address);

// True for the addresses that bind every interface: the empty host,
// 0.0.0.0 and :: (in any of its spellings).
bool is_wildcard(const ListenAddress& address);

// The same host (names compared case-insensitively) and the same port.
bool same_address(const ListenAddress& a, const ListenAddress& b);

// The phrase used in error messages about a malformed address.
inline constexpr std::string_view kListenAddressExpected =
    "expected ADDR:PORT (e.g. 127.0.0.1:8443 or [::1]:8443)";

}  // namespace hami::config
