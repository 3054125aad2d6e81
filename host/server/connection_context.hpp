// State shared by the server's connections: the router, the HTTP
// parameters, the limits, the register of open connections and the count
// of requests in flight (which graceful shutdown waits for).
#pragma once

#include <Poco/Net/HTTPServerParams.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "server/connection_watch.hpp"
#include "server/router.hpp"
#include "server/server_limits.hpp"

namespace hami::server {

// Counts requests inside the router so shutdown can wait for them, and
// tells handlers to close connections once draining begins.
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
    {
      const std::lock_guard lock(mutex);
      --in_flight;
    }
    idle.notify_all();
  }
};

struct ConnectionContext {
  std::shared_ptr<const Router> router;
  Poco::Net::HTTPServerParams::Ptr params;
  ServerLimits limits;
  ConnectionWatch watch;
  Traffic traffic;
  // Connections admitted past the overload check and not yet finished
  // (queued or being served).
  std::atomic<int> admitted{0};
  std::atomic<int> refused{0};
};

}  // namespace hami::server
