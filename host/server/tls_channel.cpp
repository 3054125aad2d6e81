#include "server/tls_channel.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace hami::server {
namespace {

// OpenSSL's read buffer grows to this with read-ahead, so a large body is
// read with few system calls.
constexpr std::size_t kTlsReadBuffer = 64 * 1024;

std::string drain_errors() {
  std::string text;
  while (const unsigned long code = ERR_get_error()) {
    std::array<char, 256> buf{};
    ERR_error_string_n(code, buf.data(), buf.size());
    if (!text.empty())
      text += "; ";
    text += buf.data();
  }
  return text;
}

// The outcome of a plain recv(2) or send(2) that returned `n`: zero bytes
// received is the peer's end, zero bytes sent is just nothing sent.
IoResult plain_result(ssize_t n, IoResult::Kind would_block, std::string& error) {
  if (n > 0 || (n == 0 && would_block == IoResult::Kind::want_write))
    return {IoResult::Kind::done, static_cast<std::size_t>(n)};
  if (n == 0)
    return {IoResult::Kind::closed};
  if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
    return {would_block};
  error = std::string("socket: ") + std::strerror(errno);
  return {IoResult::Kind::failed};
}

}  // namespace

Channel::Channel(int fd, SSL_CTX* ctx) : fd_(fd) {
  if (ctx == nullptr) {
    handshaken_ = true;
    return;
  }
  ssl_ = SSL_new(ctx);
  if (ssl_ == nullptr || SSL_set_fd(ssl_, fd) != 1) {
    const std::string why = drain_errors();
    if (ssl_ != nullptr)
      SSL_free(ssl_);
    ::close(fd_);
    throw std::runtime_error("cannot create a TLS connection: " + why);
  }
  // Partial writes let a large answer go out record by record; the moving
  // buffer flag lets a retried write come from a buffer that was appended
  // to meanwhile.
  SSL_set_mode(ssl_, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_set_read_ahead(ssl_, 1);
  SSL_set_default_read_buffer_len(ssl_, kTlsReadBuffer);
  SSL_set_accept_state(ssl_);
}

Channel::~Channel() {
  if (ssl_ != nullptr)
    SSL_free(ssl_);
  ::close(fd_);
}

IoResult Channel::ssl_result(int ret) {
  const int err = SSL_get_error(ssl_, ret);
  switch (err) {
    case SSL_ERROR_WANT_READ:
      return {IoResult::Kind::want_read};
    case SSL_ERROR_WANT_WRITE:
      return {IoResult::Kind::want_write};
    case SSL_ERROR_ZERO_RETURN:
      ERR_clear_error();
      return {IoResult::Kind::closed};
    case SSL_ERROR_SYSCALL:
      error_ = errno != 0 ? std::string("socket: ") + std::to_string(errno) : "connection ended";
      ERR_clear_error();
      // An end without close_notify counts as an orderly end
      // (SSL_OP_IGNORE_UNEXPECTED_EOF): HTTP framing detects truncation.
      return {errno == 0 ? IoResult::Kind::closed : IoResult::Kind::failed};
    default:
      error_ = drain_errors();
      return {IoResult::Kind::failed};
  }
}

IoResult Channel::handshake() {
  if (handshaken_)
    return {IoResult::Kind::done};
  errno = 0;
  const int ret = SSL_do_handshake(ssl_);
  if (ret == 1) {
    handshaken_ = true;
    return {IoResult::Kind::done};
  }
  const IoResult r = ssl_result(ret);
  // A handshake cut short is a failure, not an orderly end.
  return r.kind == IoResult::Kind::closed ? IoResult{IoResult::Kind::failed} : r;
}

IoResult Channel::read(char* buffer, std::size_t size) {
  if (ssl_ == nullptr)
    return plain_result(::recv(fd_, buffer, size, 0), IoResult::Kind::want_read, error_);
  std::size_t got = 0;
  errno = 0;
  const int ret = SSL_read_ex(ssl_, buffer, size, &got);
  if (ret == 1)
    return {IoResult::Kind::done, got};
  return ssl_result(ret);
}

IoResult Channel::write(const char* data, std::size_t size) {
  if (ssl_ == nullptr)
    return plain_result(::send(fd_, data, size, MSG_NOSIGNAL), IoResult::Kind::want_write, error_);
  std::size_t put = 0;
  errno = 0;
  const int ret = SSL_write_ex(ssl_, data, size, &put);
  if (ret == 1)
    return {IoResult::Kind::done, put};
  const IoResult r = ssl_result(ret);
  return r.kind == IoResult::Kind::closed ? IoResult{IoResult::Kind::failed} : r;
}

void Channel::cork(bool on) {
  const int value = on ? 1 : 0;
  // Best effort: without it the answer is the same, in more segments.
  (void)::setsockopt(fd_, IPPROTO_TCP, TCP_CORK, &value, sizeof value);
}

void Channel::shutdown_send() {
  ::shutdown(fd_, SHUT_WR);
}

IoResult Channel::discard(std::size_t max) {
  std::array<char, 16 * 1024> sink{};
  return plain_result(::recv(fd_, sink.data(), std::min(max, sink.size()), 0),
                      IoResult::Kind::want_read, error_);
}

}  // namespace hami::server
