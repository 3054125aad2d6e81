#include "observability/request_metrics.hpp"

#include <array>
#include <mutex>
#include <utility>

namespace hami::observability {
namespace {

constexpr std::array<std::string_view, 6> kClassNames = {"1xx", "2xx", "3xx",
                                                         "4xx", "5xx", "other"};

size_t class_index(int status) {
  if (status < 100 || status > 599)
    return 5;
  return static_cast<size_t>(status / 100 - 1);
}

double seconds(std::chrono::nanoseconds elapsed) {
  return std::chrono::duration<double>(elapsed).count();
}

}  // namespace

std::string_view status_class(int status) {
  return kClassNames[class_index(status)];
}

std::string_view method_label(std::string_view method) {
  for (const std::string_view known :
       {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}) {
    if (method == known)
      return known;
  }
  return "other";
}

RequestMetrics::RequestMetrics(MetricsRegistry& registry)
    : requests_(registry.counter("hami_scheduler_http_requests_total",
                                 "HTTP requests served, by route, method and status class.",
                                 {"route", "method", "status_class"})),
      durations_(registry.histogram(
          "hami_scheduler_http_request_duration_seconds",
          "Time spent answering HTTP requests, by route, method and status class.",
          {"route", "method", "status_class"}, latency_buckets())) {}

RequestMetrics::RouteRecorder::RouteRecorder(RequestMetrics& owner, std::string route,
                                             std::string method)
    : owner_(owner), route_(std::move(route)), method_(std::move(method)) {}

void RequestMetrics::RouteRecorder::observe(int status, std::chrono::nanoseconds elapsed) {
  const size_t k = class_index(status);
  Counter* count = counts_[k].load(std::memory_order_acquire);
  Histogram* duration = durations_[k].load(std::memory_order_acquire);
  if (count == nullptr || duration == nullptr) {
    // First request of this class: resolve the series once (a racing
    // thread resolves the same ones).
    count = &owner_.requests_.labels({route_, method_, kClassNames[k]});
    duration = &owner_.durations_.labels({route_, method_, kClassNames[k]});
    counts_[k].store(count, std::memory_order_release);
    durations_[k].store(duration, std::memory_order_release);
  }
  count->inc();
  duration->observe(seconds(elapsed));
}

RequestMetrics::RouteRecorder& RequestMetrics::route(std::string_view route,
                                                     std::string_view method) {
  const RouteKey key{route.empty() ? kUnmatchedRoute : route, method_label(method)};
  {
    const std::shared_lock lock(mu_);
    const auto it = routes_.find(key);
    if (it != routes_.end())
      return *it->second;
  }
  const std::unique_lock lock(mu_);
  auto it = routes_.find(key);
  if (it == routes_.end()) {
    auto recorder =
        std::make_unique<RouteRecorder>(*this, std::string(key.first), std::string(key.second));
    it = routes_
             .emplace(std::pair<std::string, std::string>(key.first, key.second),
                      std::move(recorder))
             .first;
  }
  return *it->second;
}

void RequestMetrics::observe(std::string_view route, std::string_view method, int status,
                             std::chrono::nanoseconds elapsed) {
  this->route(route, method).observe(status, elapsed);
}

server::Router::Handler instrument(RequestMetrics& metrics, std::string_view route,
                                   std::string_view method, server::Router::Handler handler) {
  RequestMetrics::RouteRecorder& recorder = metrics.route(route, method);
  return [&recorder, handler = std::move(handler)](server::Request& request,
                                                   server::Response& response) {
    const auto begin = std::chrono::steady_clock::now();
    try {
      handler(request, response);
    } catch (...) {
      recorder.observe(500, std::chrono::steady_clock::now() - begin);
      throw;
    }
    recorder.observe(response.status, std::chrono::steady_clock::now() - begin);
  };
}

}  // namespace hami::observability
