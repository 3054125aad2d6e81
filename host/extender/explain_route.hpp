// POST /explain on the extender listener: the body is a Pod object (JSON),
// the reply the explanation's JSON (docs/explain.md), HTTP 200. A body that
// is not a Pod object, or a pod the scheduler cannot read (a malformed
// weights annotation, a request a plugin refuses), is HTTP 400 with
// {"error":"…"}. Read-only: nothing is reserved, locked or written.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "k8s/pod.hpp"
#include "scheduling/scheduler.hpp"

namespace hami::server {
class Router;
}

namespace hami::extender {

// The Pod of an /explain body. Throws std::invalid_argument with the reason
// ("invalid JSON at offset 1: …", "the body is not a Pod object", the pod
// model's "/spec/containers: expected an array, got an object").
k8s::PodModel decode_explain_pod(std::string_view body);

struct ExplainReply {
  int status = 200;
  std::string body;
};

// The reply to one body.
ExplainReply explain_reply(const scheduling::Scheduler& scheduler, std::string_view body);

// Adds POST /explain with the extender's `body_limit`. `scheduler` must
// outlive the router.
void register_explain_route(server::Router& router, const scheduling::Scheduler& scheduler,
                            std::size_t body_limit);

}  // namespace hami::extender
