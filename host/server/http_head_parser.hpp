// HTTP/1.1 request framing, incremental and allocation-light: the request
// head (RFC 9112 §3, §5) and the chunked body coding (§7.1).
//
// Limits (the answers a client gets when it exceeds them):
//  - method: a token of at most kMaxMethod bytes, else 400;
//  - request target: at most kMaxTarget bytes, else 414, refused as soon
//    as that many bytes arrived without the end of the line;
//  - header fields: at most kMaxFields, names of at most kMaxFieldName
//    and values of at most kMaxFieldValue bytes, else 431;
//  - version HTTP/1.0 or HTTP/1.1, else 400 (505 is not worth a special
//    case for clients that speak neither);
//  - obsolete line folding, a field name that is not a token, a field
//    without ':', a bad or conflicting Content-Length, or a transfer
//    coding other than chunked: 400.
// Lines end with CRLF or a bare LF; empty lines before the request line
// are skipped (RFC 9112 §2.2).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "server/http_types.hpp"

namespace hami::server {

inline constexpr std::size_t kMaxMethod = 32;
inline constexpr std::size_t kMaxTarget = 16 * 1024;
inline constexpr std::size_t kMaxFields = 100;
inline constexpr std::size_t kMaxFieldName = 256;
inline constexpr std::size_t kMaxFieldValue = 8 * 1024;

struct RequestHead {
  std::string method;
  std::string target;
  int minor_version = 1;  // HTTP/1.<minor>
  HeaderList headers;
  // Framing, from the headers.
  bool chunked = false;
  std::optional<std::uint64_t> content_length;
  bool keep_alive = true;  // Connection and version combined
  bool expect_continue = false;
  std::string content_type;
};

// Why a head was refused: the status and the message of the JSON error.
struct HeadError {
  int status;
  const char* message;
};

inline constexpr HeadError kBadHead{400, "malformed request head"};
inline constexpr HeadError kTargetTooLong{414, "request target too long or malformed"};
inline constexpr HeadError kFieldsTooLarge{431, "request header fields too large or too many"};

// Feeds bytes until a head is complete or refused.
class HeadParser {
 public:
  enum class State { incomplete, complete, refused };

  // Consumes bytes of `data` up to and including the end of the head (the
  // rest belongs to the body or the next request) and returns how many.
  // After `complete` or `refused` it consumes nothing until reset().
  std::size_t feed(std::string_view data);

  State state() const { return state_; }
  // Valid once complete; taken by the caller.
  RequestHead& head() { return head_; }
  // Valid once refused.
  HeadError error() const { return error_; }
  // True once any byte of a request (not just empty lines) arrived.
  bool started() const { return started_; }

  void reset();

 private:
  void line(std::string_view text);
  void request_line(std::string_view text);
  void field_line(std::string_view text);
  void finish();
  void refuse(HeadError error);
  // The longest the current line may grow before it is refused.
  std::size_t line_limit() const;

  State state_ = State::incomplete;
  HeadError error_ = kBadHead;
  RequestHead head_;
  std::string partial_;  // the current line so far
  bool have_request_line_ = false;
  bool started_ = false;
};

// Decodes a chunked body (chunk extensions ignored, trailers discarded).
class ChunkedDecoder {
 public:
  enum class State { more, done, malformed };

  // Appends the decoded bytes of `data` to `body` and returns how many
  // bytes of `data` were consumed (all of them unless done or malformed,
  // when the rest belongs to the next request).
  std::size_t feed(std::string_view data, std::string& body);
  State state() const { return state_; }

 private:
  enum class Step { size, data, data_end, trailer };
  bool size_line(std::string_view text);

  State state_ = State::more;
  Step step_ = Step::size;
  std::uint64_t remaining_ = 0;
  std::string line_;
};

}  // namespace hami::server
