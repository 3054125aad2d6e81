// The server's protective limits and how they derive from the `server`
// section of the config.
//
//  - request deadline: the header and the body of one request must arrive
//    within server.readTimeoutSeconds (+ kDeadlineSlack) in total (Poco's own timeout bounds
//    each read, so a client trickling a byte per read would never trip it);
//    the TLS handshake of a new connection counts towards its first request;
//  - connections: at most server.maxThreads are served and
//    server.maxQueued more wait; a connection beyond that is answered
//    503 with Retry-After and closed;
//  - header: Poco refuses a request line or header over its fixed limits
//    (method 32 bytes, target 16 KiB, 100 fields, name 256 bytes, value
//    8 KiB) and the server answers 414 or 431;
//  - after an error answer with unread request bytes, the server reads and
//    discards at most kDrainBytes for at most kDrainTime before closing, so
//    the client reads the answer instead of a reset.
#pragma once

#include <chrono>
#include <cstddef>

#include "config/host_config.hpp"

namespace hami::server {

inline constexpr std::chrono::milliseconds kDrainTime{1000};
inline constexpr std::size_t kDrainBytes = 16u * 1024u * 1024u;
// How long a connection refused for overload may take to finish its TLS
// handshake and receive its 503.
inline constexpr std::chrono::milliseconds kBusyAnswerTimeout{1000};
// Overloaded connections waiting for their 503; beyond this they are
// closed without an answer.
inline constexpr std::size_t kBusyBacklog = 64;
inline constexpr int kRetryAfterSeconds = 1;
// The deadline cuts a connection this long after the read timeout, so that
// a body read that simply times out is still answered 408 first.
inline constexpr std::chrono::milliseconds kDeadlineSlack{500};

struct ServerLimits {
  std::chrono::milliseconds request_deadline{10000};
  int max_connections = 272;
  std::chrono::milliseconds drain_time = kDrainTime;
  std::size_t drain_bytes = kDrainBytes;
};

inline ServerLimits limits_of(const config::ServerConfig& settings) {
  ServerLimits limits;
  limits.request_deadline = std::chrono::seconds(settings.read_timeout_seconds) + kDeadlineSlack;
  limits.max_connections = settings.max_threads + settings.max_queued;
  return limits;
}

}  // namespace hami::server
