// HttpsServer: an epoll event-loop HTTP/1.1 server over TLS (or plain
// text when the ServerTls has no context: the metrics listener), serving a
// Router.
//
// Threads: one event loop per CPU the process may run on (at most 4), each
// accepting from the shared listening socket and serving its connections:
// TLS, request framing, inline handlers and answers never leave the loop's
// thread, so a request costs no thread switch. Handlers of worker routes
// run on a pool of server.maxThreads threads and hand their answer back to
// the loop.
//
// Lifecycle: the constructor binds the listening socket (so the bound port
// is known, also for port 0); start() begins accepting; shutdown() stops
// accepting (new connections are refused at once), lets in-flight requests
// finish within the grace period — their answers say `Connection: Close` —
// closes every connection and returns whether everything finished; the
// destructor waits for worker handlers still running.
// Connections are HTTP/1.1 keep-alive with the configured idle timeout;
// the request deadline, connection limit, head limits and drain bounds are
// those of server_limits.hpp; the connection phases are in
// server_connection.hpp.
// Constructing a server makes the process ignore SIGPIPE: a client that
// disconnects mid-answer must cost an error on that connection, not the
// process.
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
  // `loopback_router`, when set, serves instead of `router` every
  // connection made to a loopback address (127.0.0.0/8, ::1, or IPv4
  // loopback mapped into IPv6) — with a wildcard `listen`, what only the
  // machine's (the pod's) own processes can reach.
  HttpsServer(std::shared_ptr<const Router> router, ServerTls tls,
              const config::ListenAddress& listen, const config::ServerConfig& settings,
              const log::Logger& logger, std::shared_ptr<const Router> loopback_router = nullptr);
  // Shuts down without grace if still running.
  ~HttpsServer();

  HttpsServer(const HttpsServer&) = delete;
  HttpsServer& operator=(const HttpsServer&) = delete;

  void start();

  // The bound address and port (the real port when 0 was asked for).
  uint16_t port() const;
  std::string address() const;

  // Requests between the end of their head and the end of their answer.
  int in_flight() const;
  // Connections accepted (and admitted) since start.
  int total_connections() const;
  // Connections refused with 503 (or closed) because the server was full.
  int refused_connections() const;
  // Connections cut because a request's header or body was not received
  // within the read timeout.
  int cut_connections() const;
  // Times accepting paused because the process was out of descriptors.
  int accept_pauses() const;

  // Idempotent. True when every in-flight request finished within `grace`.
  // Returns without waiting for worker handlers that overran the grace
  // period; their answers are dropped.
  bool shutdown(std::chrono::milliseconds grace);

  const ServerTls& tls() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hami::server
