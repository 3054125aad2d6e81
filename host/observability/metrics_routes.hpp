// GET /metrics: the registry's scrape in the Prometheus text format 0.0.4
// (Content-Type "text/plain; version=0.0.4; charset=utf-8"). A scrape that
// found problems (a failing collector, dropped families or series) still
// answers 200 with everything else, and logs one warning naming them.
#pragma once

#include <string_view>

#include "log/logger.hpp"
#include "observability/metrics_registry.hpp"
#include "server/router.hpp"

namespace hami::observability {

inline constexpr std::string_view kMetricsPath = "/metrics";

// Adds GET /metrics to `router`. `registry` (and `logger`, if given) must
// outlive the router.
void register_metrics_routes(server::Router& router, const MetricsRegistry& registry,
                             const log::Logger* logger = nullptr);

}  // namespace hami::observability
