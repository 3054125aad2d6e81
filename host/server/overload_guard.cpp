#include "server/overload_guard.hpp"

#include <Poco/Net/SecureStreamSocketImpl.h>
#include <Poco/Timespan.h>

#include <chrono>

#include "server/http_types.hpp"
#include "server/socket_drain.hpp"

namespace hami::server {

const std::string& busy_reply() {
  static const std::string reply = [] {
    const std::string body = error_body("server busy, retry later");
    return "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: " +
           std::to_string(kRetryAfterSeconds) +
           "\r\nConnection: close\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
           body;
  }();
  return reply;
}

BusyResponder::BusyResponder(ServerLimits limits, int threads) : limits_(limits) {
  // A refused client gets less patience than an admitted one.
  limits_.drain_time = kBusyAnswerTimeout;
  limits_.drain_bytes = 64u * 1024u;
  for (int i = 0; i < threads; ++i)
    threads_.emplace_back([this] { run(); });
}

BusyResponder::~BusyResponder() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  for (auto& t : threads_)
    t.join();
}

bool BusyResponder::offer(const Poco::Net::StreamSocket& socket) {
  {
    const std::lock_guard lock(mutex_);
    if (stopping_ || queue_.size() >= kBusyBacklog)
      return false;
    queue_.push_back(socket);
  }
  ready_.notify_one();
  return true;
}

void BusyResponder::run() {
  for (;;) {
    Poco::Net::StreamSocket socket;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_)
        return;
      socket = std::move(queue_.front());
      queue_.pop_front();
    }
    answer(socket);
  }
}

void BusyResponder::answer(Poco::Net::StreamSocket& socket) const {
  try {
    const auto timeout = Poco::Timespan(
        std::chrono::duration_cast<std::chrono::microseconds>(kBusyAnswerTimeout).count());
    socket.setReceiveTimeout(timeout);
    socket.setSendTimeout(timeout);
    if (auto* tls = dynamic_cast<Poco::Net::SecureStreamSocketImpl*>(socket.impl()))
      tls->completeHandshake();
    const std::string& reply = busy_reply();
    std::size_t sent = 0;
    while (sent < reply.size()) {
      const int n = socket.sendBytes(reply.data() + sent, static_cast<int>(reply.size() - sent));
      if (n <= 0)
        break;
      sent += static_cast<std::size_t>(n);
    }
    drain_and_close(socket, limits_);
  } catch (...) {
    // A client that cannot even take its 503 in time is simply closed.
    try {
      socket.close();
    } catch (...) {
    }
  }
}

bool OverloadGuard::accept(const Poco::Net::StreamSocket& socket) {
  ConnectionContext& ctx = *context_;
  // Only this (acceptor) thread increments, so check-then-add is exact;
  // finishing connections only make room meanwhile.
  if (ctx.admitted.load() < ctx.limits.max_connections) {
    ++ctx.admitted;
    return true;
  }
  ++ctx.refused;
  busy_->offer(socket);
  return false;
}

}  // namespace hami::server
