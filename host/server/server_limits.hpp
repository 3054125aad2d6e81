// The server's protective limits and how they derive from the `server`
// section of the config.
//
//  - request deadline: the header and the body of one request must arrive
//    within server.readTimeoutSeconds (+ kDeadlineSlack) in total, however
//    quickly each single byte arrives; the TLS handshake of a new
//    connection counts towards its first request;
//  - keep-alive: a connection idle between requests for
//    server.keepAliveTimeoutSeconds is closed; an answer the client does
//    not read for server.readTimeoutSeconds is abandoned;
//  - connections: at most server.maxThreads + server.maxQueued are open
//    at once (maxThreads also sizes the pool running blocking handlers); a
//    connection beyond that is answered 503 with Retry-After and closed;
//  - header: a request line or header over the fixed limits of
//    http_head_parser.hpp (method 32 bytes, target 16 KiB, 100 fields,
//    name 256 bytes, value 8 KiB) is answered 400, 414 or 431;
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
// handshake and receive its 503, and how long its drain may last.
inline constexpr std::chrono::milliseconds kBusyAnswerTimeout{1000};
// What a refused connection may still send before it is closed.
inline constexpr std::size_t kBusyDrainBytes = 64u * 1024u;
// Overloaded connections waiting for their 503; beyond this they are
// closed without an answer.
inline constexpr std::size_t kBusyBacklog = 64;
inline constexpr int kRetryAfterSeconds = 1;
// The deadline cuts a connection this long after the read timeout, so that
// a body read that simply times out is still answered 408 first.
inline constexpr std::chrono::milliseconds kDeadlineSlack{500};

struct ServerLimits {
  std::chrono::milliseconds request_deadline{10000};
  // Idle time allowed between requests on a kept-alive connection.
  std::chrono::milliseconds keep_alive{15000};
  // An answer whose client reads nothing for this long is abandoned.
  std::chrono::milliseconds write_stall{10000};
  int max_connections = 272;
  std::chrono::milliseconds drain_time = kDrainTime;
  std::size_t drain_bytes = kDrainBytes;
};

inline ServerLimits limits_of(const config::ServerConfig& settings) {
  ServerLimits limits;
  limits.request_deadline = std::chrono::seconds(settings.read_timeout_seconds) + kDeadlineSlack;
  limits.keep_alive = std::chrono::seconds(settings.keep_alive_timeout_seconds);
  limits.write_stall = std::chrono::seconds(settings.read_timeout_seconds);
  limits.max_connections = settings.max_threads + settings.max_queued;
  return limits;
}

}  // namespace hami::server
