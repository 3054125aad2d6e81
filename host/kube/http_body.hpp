// HttpBodyReader: the body of one HTTP/1.1 reply, read incrementally from
// the connection after the headers — chunked (RFC 9112 §7.1), with a
// Content-Length, or until the connection closes. Unlike Poco 1.11's
// chunked stream, which reports a connection cut between chunks as a normal
// end, it tells a complete body from a truncated one: a watch that was cut
// must be resumed, not mistaken for the server's timeoutSeconds end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

namespace hami::kube {

class HttpBodyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class HttpBodyReader {
 public:
  // Reads up to `max` bytes from the connection; 0 at end of stream.
  using Source = std::function<size_t(char* out, size_t max)>;
  enum class Framing { chunked, length, until_close, none };

  // `length` is the Content-Length for Framing::length.
  HttpBodyReader(Source source, Framing framing, uint64_t length = 0);

  // Up to `max` (> 0) body bytes; 0 once the whole body was read. Throws
  // HttpBodyError when the connection ends before the body does or the
  // chunk framing is malformed.
  size_t read(char* out, size_t max);
  // Reads the rest of the body.
  std::string read_all();
  bool finished() const { return done_; }

 private:
  size_t fill();                       // refills buffer_ from the source; 0 at end of stream
  int next_byte();                     // -1 at end of stream
  std::string line();                  // a CRLF- or LF-terminated line without the terminator
  size_t take(char* out, size_t max);  // buffered bytes first, then the source

  Source source_;
  Framing framing_;
  uint64_t remaining_;  // of the current chunk or of the Content-Length
  bool done_ = false;
  bool in_chunk_ = false;
  std::string buffer_;
  size_t pos_ = 0;
};

}  // namespace hami::kube
