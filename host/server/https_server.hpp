// HttpsServer: Poco's TCPServer over a SecureServerSocket, serving a Router
// through HttpConnection.
//
// Lifecycle: the constructor binds the listening socket (so the bound port
// is known, also for port 0); start() begins accepting; shutdown() stops
// accepting, lets in-flight requests finish within the grace period, closes
// idle keep-alive connections and returns whether everything finished.
// Connections are HTTP/1.1 keep-alive with the configured idle timeout; the
// read timeout bounds every socket read, and the header plus body of each
// request (server_limits.hpp). At most max_threads connections are served
// at once, max_queued more wait; beyond that a connection gets a 503
// (overload_guard.hpp).
// Constructing a server makes the process ignore SIGPIPE: OpenSSL writes
// with write(2), and a client that disconnects mid-answer must cost an
// error on that connection, not the process.
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
  // Connections refused with 503 (or closed) because the server was full.
  int refused_connections() const;
  // Connections cut because a request's header or body was not received
  // within the read timeout.
  int cut_connections() const;

  // Idempotent. True when every in-flight request finished within `grace`.
  bool shutdown(std::chrono::milliseconds grace);

  const ServerTls& tls() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hami::server
