// POST /preemption: kube-scheduler's preemptVerb (docs/preemption.md), on
// the extender listener. ExtenderPreemptionArgs in, ExtenderPreemptionResult
// out (preemption_args.hpp), answered by Scheduler::preempt.
//
// The result type has no error field, so a call that cannot be answered is
// an HTTP error, which kube-scheduler reports ("failed preemption with
// extender at URL …, code N") and which fails the preemption unless the
// extender is ignorable: 400 {"error":"…"} for a body that is not
// ExtenderPreemptionArgs or a Pod that cannot be read, 500 {"error":"…"}
// when the scheduler cannot judge the pod now (not the leader, a plugin
// refusing the pod's request).
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

struct PreemptionReply {
  int status = 200;
  std::string body;
};

PreemptionReply preemption_reply(const scheduling::Scheduler& scheduler, std::string_view body,
                                 const log::Logger* logger = nullptr);

// Adds POST /preemption. `scheduler` (and `logger`) must outlive the router.
void register_preemption_route(server::Router& router, const scheduling::Scheduler& scheduler,
                               std::size_t body_limit, const log::Logger* logger = nullptr);

}  // namespace hami::extender
