// What the server's event loops and connections share: the router, the
// TLS context, the limits, the worker pool, the counters, and the count of
// requests in flight that graceful shutdown waits for.
#pragma once

#include <openssl/ssl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "server/router.hpp"
#include "server/server_limits.hpp"
#include "server/worker_pool.hpp"

namespace hami::server {

// Requests between the end of their head and the end of their answer.
struct Traffic {
  std::atomic<bool> draining{false};
  std::mutex mutex;
  std::condition_variable idle;
  int in_flight = 0;

  void enter() {
    const std::lock_guard lock(mutex);
    ++in_flight;
  }
  void leave() {
    bool none = false;
    {
      const std::lock_guard lock(mutex);
      none = --in_flight == 0;
    }
    if (none)
      idle.notify_all();
  }
};

struct ServerState {
  std::shared_ptr<const Router> router;
  // Serves instead of `router` the connections made to a loopback address
  // of the socket; null: `router` serves every connection.
  std::shared_ptr<const Router> loopback_router;
  SSL_CTX* tls = nullptr;  // null: plain HTTP
  ServerLimits limits;
  WorkerPool* workers = nullptr;
  Traffic traffic;
  std::atomic<int> admitted{0};  // connections counted against the limit
  std::atomic<int> busy{0};      // connections being refused with a 503
  std::atomic<int> total{0};
  std::atomic<int> refused{0};
  std::atomic<int> cut{0};
  std::atomic<int> accept_pauses{0};
};

}  // namespace hami::server
