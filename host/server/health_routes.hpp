// Health routes, HAMi-compatible (reference hami-v2.10 §1.3, §1.6):
//   GET /healthz, GET /status — liveness: 200 with an empty body whenever the
//                               process serves;
//   GET /readyz               — 200 with an empty body when every readiness
//                               condition is met, else 503 with
//                               {"error":"not ready: <name>: <detail>; ...",
//                                "unmet":{"<name>":"<detail>",...}}.
#pragma once

#include "server/readiness.hpp"
#include "server/router.hpp"

namespace hami::server {

// `readiness` must outlive the router.
void register_health_routes(Router& router, const Readiness& readiness);

}  // namespace hami::server
