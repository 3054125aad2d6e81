// HttpsServer: Poco's HTTPServer over a SecureServerSocket, serving a
// Router.
//
// Lifecycle: the constructor binds the listening socket (so the bound port
// is known, also for port 0); start() begins accepting; shutdown() stops
// accepting, lets in-flight requests finish within the grace period, closes
// idle keep-alive connections and returns whether everything finished.
// Connections are HTTP/1.1 keep-alive with the configured idle timeout; the
// read timeout bounds every socket read. At most max_threads connections
// are served at once, max_queued more wait.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "config/host_config.hpp"
#include "log/logger.hpp"
#include "server/router.hpp"
#include "server/tls_context.hpp"

namespace hami::server {

class HttpsServer {
 public:
  // Throws std::runtime_error naming the address when it cannot bind.
  HttpsServer(std::shared_ptr<const Router> router, ServerTls tls,
              const config::ListenAddress& listen, const config::ServerConfig& settings,
              const log::Logger& logger);
  // Shuts down without grace if still running.
  ~HttpsServer();

  HttpsServer(const HttpsServer&) = delete;
  HttpsServer& operator=(const HttpsServer&) = delete;

  void start();

  // The bound address and port (the real port when 0 was asked for).
  uint16_t port() const;
  std::string address() const;

  // Requests currently inside the router.
  int in_flight() const;
  // Connections accepted since start.
  int total_connections() const;

  // Idempotent. True when every in-flight request finished within `grace`.
  bool shutdown(std::chrono::milliseconds grace);

  const ServerTls& tls() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hami::server
