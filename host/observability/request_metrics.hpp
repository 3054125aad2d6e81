// HTTP request metrics, per route, method and outcome (status class):
//   hami_scheduler_http_requests_total{route, method, status_class}
//   hami_scheduler_http_request_duration_seconds{route, method, status_class}
//
// Labels are bounded whatever clients send: `route` is the registered path
// (a request that matched no route is "unmatched"), `method` one of GET,
// HEAD, POST, PUT, PATCH, DELETE, OPTIONS or "other", `status_class`
// "1xx".."5xx" or "other".
//
// Recording through a RouteRecorder takes no lock (its series are resolved
// on first use and then reached through atomics).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>

#include "observability/instruments.hpp"
#include "observability/metrics_registry.hpp"
#include "server/router.hpp"

namespace hami::observability {

inline constexpr std::string_view kUnmatchedRoute = "unmatched";

// "2xx" for 200..299 and so on; "other" outside 100..599.
std::string_view status_class(int status);
// The method itself when it is a standard one, else "other".
std::string_view method_label(std::string_view method);

class RequestMetrics {
 public:
  explicit RequestMetrics(MetricsRegistry& registry);
  RequestMetrics(const RequestMetrics&) = delete;
  RequestMetrics& operator=(const RequestMetrics&) = delete;

  // One route and method's series.
  class RouteRecorder {
   public:
    RouteRecorder(RequestMetrics& owner, std::string route, std::string method);
    void observe(int status, std::chrono::nanoseconds elapsed);

   private:
    static constexpr size_t kClasses = 6;  // 1xx..5xx, other
    RequestMetrics& owner_;
    std::string route_;
    std::string method_;
    std::array<std::atomic<Counter*>, kClasses> counts_{};
    std::array<std::atomic<Histogram*>, kClasses> durations_{};
  };

  // The recorder of `route` (the registered path, "" for no match) and
  // `method`; the reference stays valid as long as this object.
  RouteRecorder& route(std::string_view route, std::string_view method);

  // route(route, method).observe(status, elapsed).
  void observe(std::string_view route, std::string_view method, int status,
               std::chrono::nanoseconds elapsed);

 private:
  using RouteKey = std::pair<std::string_view, std::string_view>;
  struct RouteLess {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      return RouteKey(a.first, a.second) < RouteKey(b.first, b.second);
    }
  };

  CounterFamily& requests_;
  HistogramFamily& durations_;
  mutable std::shared_mutex mu_;
  std::map<std::pair<std::string, std::string>, std::unique_ptr<RouteRecorder>, RouteLess> routes_;
};

// Wraps `handler` so every call is counted and timed as `route` / `method`
// (the handler's own time; the body was read before). A handler that
// throws is recorded as a 500, as the router answers it, and the exception
// is rethrown.
server::Router::Handler instrument(RequestMetrics& metrics, std::string_view route,
                                   std::string_view method, server::Router::Handler handler);

}  // namespace hami::observability
