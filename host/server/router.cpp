#include "server/router.hpp"

#include <stdexcept>

#include "k8s/json_depth.hpp"
#include "log/logger.hpp"

namespace hami::server {
namespace {

void set_error(Response& r, int status, std::string_view message) {
  r.status = status;
  r.content_type = "application/json";
  r.body = error_body(message);
  r.tail.clear();
  r.keep.reset();
}

}  // namespace

std::string_view path_of(std::string_view target) {
  const auto end = target.find_first_of("?#");
  return end == std::string_view::npos ? target : target.substr(0, end);
}

void Router::add(std::string method, std::string path, std::size_t body_limit, Handler handler,
                 RouteOptions options) {
  auto& methods = routes_[std::move(path)];
  const auto [it, inserted] =
      methods.emplace(std::move(method), Route{body_limit, std::move(handler), options});
  if (!inserted)
    throw std::invalid_argument("route registered twice: " + it->first);
}

void Router::set_observer(Observer observer) {
  observer_ = std::move(observer);
}

std::string Router::allowed_methods(std::string_view path) const {
  const auto found = routes_.find(path);
  if (found == routes_.end())
    return {};
  std::string allow;
  for (const auto& [method, route] : found->second) {
    if (!allow.empty())
      allow += ", ";
    allow += method;
  }
  return allow;
}

const Router::Route* Router::find(std::string_view method, std::string_view path,
                                  Response& refusal) const {
  const auto by_path = routes_.find(path);
  if (by_path == routes_.end()) {
    set_error(refusal, 404, "not found: " + std::string(path));
    return nullptr;
  }
  const auto by_method = by_path->second.find(method);
  if (by_method == by_path->second.end()) {
    set_error(refusal, 405,
              "method " + std::string(method) + " not allowed on " + std::string(path));
    refusal.headers.emplace_back("Allow", allowed_methods(path));
    return nullptr;
  }
  return &by_method->second;
}

void Router::handle(const Route& route, Request& request, Response& response) const {
  // Before any handler parses it: a recursive JSON reader would overflow
  // the thread's stack on a deeply nested body.
  if (!route.options.bounds_nesting &&
      k8s::json_nests_deeper_than(request.body, k8s::kMaxJsonDepth)) {
    set_error(
        response, 400,
        "request body nests JSON deeper than " + std::to_string(k8s::kMaxJsonDepth) + " levels");
    return;
  }
  try {
    route.handler(request, response);
  } catch (const std::exception& e) {
    if (logger_ != nullptr) {
      logger_->error("handler failed",
                     {{"method", request.method}, {"path", request.path}, {"error", e.what()}});
    }
    set_error(response, 500, "internal error");
  } catch (...) {
    if (logger_ != nullptr) {
      logger_->error(
          "handler failed",
          {{"method", request.method}, {"path", request.path}, {"error", "unknown exception"}});
    }
    set_error(response, 500, "internal error");
  }
}

void Router::finished(std::string_view path, std::string_view method, int status,
                      std::chrono::nanoseconds elapsed, std::string_view peer) const {
  if (observer_) {
    const bool known = routes_.find(path) != routes_.end();
    observer_(known ? path : std::string_view{}, method, status, elapsed);
  }
  if (logger_ != nullptr && logger_->enabled(log::Level::debug)) {
    logger_->debug("request", {{"method", std::string(method)},
                               {"route", std::string(path)},
                               {"status", std::to_string(status)},
                               {"peer", std::string(peer)},
                               {"duration_ms", log::milliseconds_text(elapsed)}});
  }
}

}  // namespace hami::server
