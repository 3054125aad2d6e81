// ExtenderService: the extender verbs as body-in, body-out functions, and
// their HTTP routes.
//
//   POST /filter (alias /schedule, the seed's name) — ExtenderArgs →
//        ExtenderFilterResult. Always HTTP 200 with failures in `Error`
//        (an empty body is 400, as in HAMi). A request without Pod is an
//        error; a null NodeNames is an empty candidate list, not a crash
//        (HAMi bug 7.7#6). With full Nodes the reply fills Nodes.items with
//        the request's own Node objects, otherwise NodeNames. Pods without a
//        managed resource get the candidates back unchanged.
//   POST /prioritize — ExtenderArgs → HostPriorityList (scores 0..10). The
//        list has no error field: a body that cannot be read is HTTP 400
//        (kube-scheduler ignores a failing prioritize extender).
//   POST /bind — ExtenderBindingArgs → ExtenderBindingResult, HTTP 200.
//   GET /allocations — the allocation report (allocations_report.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "scheduling/scheduler.hpp"

namespace hami::server {
class Router;
}

namespace hami::extender {

struct Reply {
  int status = 200;
  std::string body;
};

class ExtenderService {
 public:
  // `scheduler` (and `logger`, if set) must outlive the service.
  explicit ExtenderService(scheduling::Scheduler& scheduler, const log::Logger* logger = nullptr)
      : scheduler_(scheduler), logger_(logger) {}

  Reply filter(std::string_view body) const;
  Reply prioritize(std::string_view body) const;
  Reply bind(std::string_view body) const;

 private:
  scheduling::Scheduler& scheduler_;
  const log::Logger* logger_;
};

// Adds POST /filter, /schedule, /prioritize, /bind and GET /allocations.
// `scheduler` must outlive the router.
void register_extender_routes(server::Router& router, scheduling::Scheduler& scheduler,
                              std::size_t body_limit, const log::Logger* logger = nullptr);

}  // namespace hami::extender
