// GET /metrics: the registry's scrape in the Prometheus text format 0.0.4
// (Content-Type "text/plain; version=0.0.4; charset=utf-8").
#pragma once

#include <string_view>

#include "observability/metrics_registry.hpp"
#include "server/router.hpp"

namespace hami::observability {

inline constexpr std::string_view kMetricsPath = "/metrics";

// Adds GET /metrics to `router`. `registry` must outlive the router.
void register_metrics_routes(server::Router& router, const MetricsRegistry& registry);

}  // namespace hami::observability
