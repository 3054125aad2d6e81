// POST /refit: the NUMA refit the node-side device plugin asks for
// (scheduling/refit.hpp, docs/refit.md), on the cluster-facing webhook
// listener. Always HTTP 200 with
//   {"succeeded":bool,"containerDevices":"…","failureReason":"…"}
// (all three fields always written: failureReason "" on success,
// containerDevices "" on failure). A body that is not a JSON refit request,
// or a Content-Type other than application/json, is an in-band failure.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "scheduling/scheduler.hpp"

namespace hami::log {
class Logger;
}
namespace hami::server {
class Router;
}

namespace hami::extender {

// The request body: {"podUID","podNamespace","podName","nodeName",
// "containerIndex","containerName","deviceType","allowedDeviceUUIDs":[…]},
// field names matched as Go matches them (case-insensitively), null as the
// zero value, other members ignored. Throws DecodeError.
scheduling::RefitRequest decode_refit_request(std::string_view body);

std::string encode_refit_result(const scheduling::RefitOutcome& outcome);

// The reply body for one request.
std::string refit_reply(scheduling::Scheduler& scheduler, std::string_view content_type,
                        std::string_view body, const log::Logger* logger = nullptr);

// Adds POST /refit. `scheduler` (and `logger`) must outlive the router.
void register_refit_route(server::Router& router, scheduling::Scheduler& scheduler,
                          std::size_t body_limit, const log::Logger* logger = nullptr);

}  // namespace hami::extender
