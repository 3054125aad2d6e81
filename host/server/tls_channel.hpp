// One accepted socket, non-blocking, spoken through TLS (an SSL object made
// from the server's context) or in plain text (the metrics listener).
//
// Every operation returns at once: how many bytes moved, or that it must
// be retried once the socket is readable (want_read) or writable
// (want_write), or that the connection ended (closed: the peer's orderly
// end) or broke (failed). A TLS operation may want the other direction
// than its own (a handshake message to send while reading); callers wait
// for what is asked and retry the same operation.
#pragma once

#include <openssl/ssl.h>

#include <cstddef>
#include <memory>
#include <string>

namespace hami::server {

struct IoResult {
  enum class Kind { done, want_read, want_write, closed, failed };
  Kind kind;
  std::size_t bytes = 0;
};

class Channel {
 public:
  // Takes ownership of `fd` (closed on destruction). `ctx` null: plain.
  // Throws std::runtime_error when OpenSSL cannot make an SSL object.
  Channel(int fd, SSL_CTX* ctx);
  ~Channel();
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  int fd() const { return fd_; }

  // The TLS handshake; done at once for plain channels.
  IoResult handshake();
  // Why the last operation failed (OpenSSL's error text), for debug logs.
  const std::string& error() const { return error_; }

  IoResult read(char* buffer, std::size_t size);
  // True when TLS holds received bytes not yet returned by read(), which
  // no readiness event will announce.
  bool pending() const { return ssl_ != nullptr && SSL_has_pending(ssl_) == 1; }
  IoResult write(const char* data, std::size_t size);
  // Holds back partial TCP segments while on (TCP_CORK): a large answer
  // goes out as 16 KiB TLS records, one write(2) each, and uncorked each
  // write may leave as its own segment. Turning it off sends the rest.
  void cork(bool on);

  // Ends the sending side at the socket (no TLS close_notify) so the
  // client sees the end of the answer while its unread bytes are drained.
  void shutdown_send();
  // Reads and discards raw bytes (no decryption) while draining.
  IoResult discard(std::size_t max);

 private:
  IoResult ssl_result(int ret);

  int fd_;
  SSL* ssl_ = nullptr;
  bool handshaken_ = false;
  std::string error_;
};

}  // namespace hami::server
