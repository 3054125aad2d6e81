// The webhook's HTTP routes: POST /mutate-pod (the seed's path) and
// POST /webhook (HAMi's), both answered by one AdmissionService.
#pragma once

#include <cstddef>

#include "admission/admission_service.hpp"
#include "server/router.hpp"

namespace hami::admission {

// `service` must outlive the router. `body_limit` is the largest accepted
// body in bytes (the router answers 413 above it, before reading).
void register_admission_routes(server::Router& router, const AdmissionService& service,
                               std::size_t body_limit);

}  // namespace hami::admission
