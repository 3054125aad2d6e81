// OverloadGuard: the accept-time check that keeps the server answering when
// it is saturated.
//
// Poco's TCPServer silently closes connections once its queue is full.
// This filter runs on the acceptor thread before that: while fewer than
// limits.max_connections connections are admitted (queued or served) it
// admits the new one; otherwise it hands the connection to a small pool of
// responder threads that complete the TLS handshake, send
//   HTTP/1.1 503 Service Unavailable
//   Retry-After: 1, Connection: close, {"error":"server busy, retry later"}
// drain what the client sent and close, all within kBusyAnswerTimeout per
// phase. When even the responders' backlog (kBusyBacklog) is full, the
// connection is closed without an answer. Admitted connections are never
// delayed by refused ones.
#pragma once

#include <Poco/Net/StreamSocket.h>
#include <Poco/Net/TCPServer.h>

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "server/connection_context.hpp"

namespace hami::server {

// The exact bytes of the busy answer.
const std::string& busy_reply();

class BusyResponder {
 public:
  explicit BusyResponder(ServerLimits limits, int threads = 2);
  // Stops the threads; queued connections are closed unanswered.
  ~BusyResponder();
  BusyResponder(const BusyResponder&) = delete;
  BusyResponder& operator=(const BusyResponder&) = delete;

  // Queues `socket` for a 503; false (socket left alone) when the backlog
  // is full.
  bool offer(const Poco::Net::StreamSocket& socket);

 private:
  void run();
  void answer(Poco::Net::StreamSocket& socket) const;

  ServerLimits limits_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Poco::Net::StreamSocket> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

class OverloadGuard final : public Poco::Net::TCPServerConnectionFilter {
 public:
  OverloadGuard(std::shared_ptr<ConnectionContext> context, std::shared_ptr<BusyResponder> busy)
      : context_(std::move(context)), busy_(std::move(busy)) {}

  bool accept(const Poco::Net::StreamSocket& socket) override;

 private:
  std::shared_ptr<ConnectionContext> context_;
  std::shared_ptr<BusyResponder> busy_;
};

}  // namespace hami::server
