// Router: exact-path HTTP routing (interfaces §D), independent of the
// transport that reads requests and writes answers (https_server.hpp).
//
// Contract:
//  - the path is matched exactly; the query string is ignored;
//  - unknown path → 404, known path with another method → 405 with an
//    `Allow` header listing the path's methods;
//  - each route has a body limit (the server answers 413 beyond it) and an
//    execution: `inline_loop` handlers run on the server's event-loop
//    thread that read the request — they must only compute (no network, no
//    waiting, no locks held for long); `worker` handlers (the default) run
//    on the server's worker threads and may block;
//  - a body nesting arrays/objects deeper than kMaxJsonDepth → 400 before
//    the handler runs (json_depth.hpp), unless the route declares that its
//    handler bounds nesting itself (a parser that refuses the level past
//    kMaxJsonDepth before recursing into it), which saves a scan of large
//    bodies;
//  - a handler that throws → 500 (the exception is logged, not sent);
//  - every error body is {"error":"..."}.
// Routes are added before the server starts; lookups and handling are
// const and run concurrently on the server's threads.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "server/http_types.hpp"

namespace hami::log {
class Logger;
}

namespace hami::server {

enum class Execution { inline_loop, worker };

struct RouteOptions {
  Execution execution = Execution::worker;
  // The handler refuses JSON nested deeper than kMaxJsonDepth on its own,
  // before its parser recurses that deep.
  bool bounds_nesting = false;

  RouteOptions() = default;
  // Implicit on purpose: `router.add(..., Execution::inline_loop)`.
  RouteOptions(Execution how) : execution(how) {}  // NOLINT(google-explicit-constructor)
  RouteOptions(Execution how, bool bounds) : execution(how), bounds_nesting(bounds) {}
};

class Router {
 public:
  using Handler = std::function<void(Request&, Response&)>;

  struct Route {
    std::size_t body_limit;
    Handler handler;
    RouteOptions options;
  };

  // `logger` (optional) must outlive the router.
  explicit Router(const log::Logger* logger = nullptr) : logger_(logger) {}

  // Registers `handler` for `method` on `path`. A second registration of the
  // same method and path throws std::invalid_argument.
  void add(std::string method, std::string path, std::size_t body_limit, Handler handler,
           RouteOptions options = {});

  // The route for `method` on `path`; nullptr with `refusal` set to the 404
  // or 405 answer when there is none.
  const Route* find(std::string_view method, std::string_view path, Response& refusal) const;

  // Answers a complete request with `route`: the nesting check, then the
  // handler; a throwing handler becomes a 500.
  void handle(const Route& route, Request& request, Response& response) const;

  // Reports a finished request to the observer and logs it at debug level.
  // `path` is the request's path; `elapsed` runs from the end of the head
  // to the handler's answer, body reading included.
  void finished(std::string_view path, std::string_view method, int status,
                std::chrono::nanoseconds elapsed, std::string_view peer) const;

  // Called after every request with the registered path that served it
  // ("" when no route has the request's path), the method, the status sent
  // and the time spent. Set before the server starts.
  using Observer = std::function<void(std::string_view route, std::string_view method, int status,
                                      std::chrono::nanoseconds elapsed)>;
  void set_observer(Observer observer);

  // The registered methods of `path`, comma-separated and sorted (the Allow
  // header); empty when the path is unknown.
  std::string allowed_methods(std::string_view path) const;


 private:
  const log::Logger* logger_;
  Observer observer_;
  std::map<std::string, std::map<std::string, Route, std::less<>>, std::less<>> routes_;
};

// The path part of a request target: everything before '?' or '#'.
std::string_view path_of(std::string_view target);

}  // namespace hami::server
