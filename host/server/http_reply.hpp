// The bytes of HTTP/1.1 answers: the status line and header block of a
// Response, and the fixed answers the server sends on its own.
//
// Header block, in this order: Date (RFC 9110 IMF-fixdate), Content-Type
// (when set), the handler's headers, Content-Length, then
// `Connection: Close` when the connection ends after the answer (HTTP/1.1)
// or `Connection: Keep-Alive` when an HTTP/1.0 connection stays open.
// Reason phrases are Poco's, so clients see the same text as before.
#pragma once

#include <cstddef>
#include <ctime>
#include <string>
#include <string_view>

#include "server/http_types.hpp"
#include "server/server_limits.hpp"

namespace hami::server {

// "Sun, 29 Nov 2026 16:00:00 GMT" for `now`, cached per second (one cache
// per thread that formats).
std::string_view http_date(std::time_t now);

std::string_view reason_phrase(int status);

// Appends the status line and header block (ending with the empty line)
// for `response`, whose body is `body_size` bytes long.
void append_response_head(std::string& out, const Response& response, std::size_t body_size,
                          int minor_version, bool close);

// The exact bytes a client gets when the server is at its connection
// limit: 503 with Retry-After and `Connection: close`.
const std::string& busy_reply();

// "HTTP/1.1 100 Continue" and the empty line.
inline constexpr std::string_view kContinueReply = "HTTP/1.1 100 Continue\r\n\r\n";

}  // namespace hami::server
