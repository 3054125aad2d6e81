#include "server/socket_drain.hpp"

#include <Poco/Net/HTTPServerRequestImpl.h>
#include <poll.h>
#include <sys/socket.h>

#include <array>
#include <cerrno>
#include <chrono>

namespace hami::server {

void drain_and_close(Poco::Net::StreamSocket& socket, const ServerLimits& limits) {
  try {
    const int fd = socket.impl()->sockfd();
    if (fd < 0)
      return;
    // Raw calls on purpose: Poco's TLS shutdown would also shut the
    // receiving side, and the bytes still to come are encrypted noise we
    // only need to take off the wire, not decrypt.
    ::shutdown(fd, SHUT_WR);
    const auto deadline = std::chrono::steady_clock::now() + limits.drain_time;
    std::array<char, 64 * 1024> sink{};
    std::size_t drained = 0;
    while (drained < limits.drain_bytes) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0)
        break;
      pollfd p{fd, POLLIN, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
      if (ready < 0 && errno == EINTR)
        continue;
      if (ready <= 0)
        break;
      const ssize_t n = ::recv(fd, sink.data(), sink.size(), MSG_DONTWAIT);
      if (n == 0)
        break;  // the client closed: nothing left to reset
      if (n < 0) {
        if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
          continue;
        break;
      }
      drained += static_cast<std::size_t>(n);
    }
    // The TLS layer's close would try to send close_notify on the shut
    // sending side; that write fails (EPIPE, SIGPIPE is ignored by the
    // server) and is swallowed by Poco's close.
    socket.close();
  } catch (...) {
    // Best effort: the connection is being given up either way.
  }
}

bool drain_and_close(Poco::Net::HTTPServerRequest& request, const ServerLimits& limits) {
  auto* impl = dynamic_cast<Poco::Net::HTTPServerRequestImpl*>(&request);
  if (impl == nullptr)
    return false;
  drain_and_close(impl->socket(), limits);
  return true;
}

}  // namespace hami::server
