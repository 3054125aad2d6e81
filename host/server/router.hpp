// Router: exact-path HTTP routing (interfaces §D).
//
// Contract:
//  - the path is matched exactly; the query string is ignored;
//  - unknown path → 404, known path with another method → 405 with an
//    `Allow` header listing the path's methods;
//  - a body over the route's limit → 413: checked against Content-Length
//    before reading, and while reading chunked (or length-less) bodies;
//  - a body not received within the server's read timeout (one read) or
//    request deadline (all of it) → 408;
//  - an answer sent before the whole body was read (413, 408, and 404/405
//    for a request that carries a body) closes the connection after
//    draining the unread bytes within the drain bounds (socket_drain.hpp),
//    so the client reads the answer rather than a reset;
//  - a body nesting arrays/objects deeper than kMaxJsonDepth → 400 before
//    the handler runs (json_depth.hpp);
//  - a handler that throws → 500 (the exception is logged, not sent);
//  - every error body is {"error":"..."}.
// Routes are added before the server starts; dispatch is const and runs
// concurrently on the server's threads.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "server/http_types.hpp"
#include "server/server_limits.hpp"

namespace Poco::Net {
class HTTPServerRequest;
class HTTPServerResponse;
}

namespace hami::log {
class Logger;
}

namespace hami::server {

class Router {
 public:
  using Handler = std::function<void(Request&, Response&)>;

  // `logger` (optional) must outlive the router.
  explicit Router(const log::Logger* logger = nullptr) : logger_(logger) {}

  // Bounds of the drain after an early answer (the request deadline is not
  // used here). Set before the server starts.
  void set_limits(const ServerLimits& limits) { limits_ = limits; }

  // Registers `handler` for `method` on `path`. A second registration of the
  // same method and path throws std::invalid_argument.
  void add(std::string method, std::string path, std::size_t body_limit, Handler handler);

  // What dispatch did: the status sent, and whether the connection was
  // already closed (drained) so the caller must not touch it again.
  struct Outcome {
    int status = 0;
    bool closed = false;
  };

  // Serves one request: routes, reads the body, calls the handler, writes
  // the response, reports it to the observer and logs it at debug level.
  // `close_after` forces `Connection: close` (used while the server drains).
  // `deadline` (optional) ties the body read to the server's request
  // deadline.
  struct Deadline {
    std::function<void()> body_read;  // stops the deadline; before the handler
    std::function<bool()> passed;     // true when the deadline cut the read
  };
  Outcome dispatch(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response,
                   bool close_after, const Deadline* deadline = nullptr) const;

  // Called after every request with the registered path that served it
  // ("" when no route has the request's path), the method, the status sent
  // and the time spent, body reading included. Set before the server starts.
  using Observer = std::function<void(std::string_view route, std::string_view method, int status,
                                      std::chrono::nanoseconds elapsed)>;
  void set_observer(Observer observer);

  // The registered methods of `path`, comma-separated and sorted (the Allow
  // header); empty when the path is unknown.
  std::string allowed_methods(std::string_view path) const;

 private:
  // Serves one request; `closed` of the result means "drain and close".
  Outcome serve(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response,
                bool close_after, const Deadline* deadline) const;

  struct Route {
    std::size_t body_limit;
    Handler handler;
  };
  const log::Logger* logger_;
  ServerLimits limits_;
  Observer observer_;
  std::map<std::string, std::map<std::string, Route>, std::less<>> routes_;
};

// The path part of a request target: everything before '?' or '#'.
std::string_view path_of(std::string_view target);

}  // namespace hami::server
