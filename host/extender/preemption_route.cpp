#include "extender/preemption_route.hpp"

#include <chrono>
#include <optional>

#include "extender/preemption_args.hpp"
#include "hami/plugin.hpp"
#include "k8s/object_error.hpp"
#include "k8s/pod.hpp"
#include "log/logger.hpp"
#include "server/http_types.hpp"
#include "server/router.hpp"

namespace hami::extender {

PreemptionReply preemption_reply(const scheduling::Scheduler& scheduler, std::string_view body,
                                 const log::Logger* logger) {
  const auto started = std::chrono::steady_clock::now();
  if (body.empty())
    return {400, server::error_body("empty request body")};
  std::optional<ExtenderPreemptionArgs> args;
  std::optional<k8s::PodModel> pod;
  try {
    args.emplace(decode_preemption_args(body));
    if (args->pod == nullptr)
      return {400, server::error_body("preemption args missing pod")};
    pod.emplace(*args->pod);
  } catch (const DecodeError& e) {
    return {400, server::error_body(e.what())};
  } catch (const k8s::ObjectError& e) {
    return {400, server::error_body(std::string("invalid Pod: ") + e.what())};
  }
  const scheduling::PreemptionOutcome outcome = scheduler.preempt(*pod, args->candidates);
  const std::string who =
      std::string(to_sv(pod->view().namespace_)) + "/" + std::string(to_sv(pod->view().name));
  if (!outcome.error.empty()) {
    if (logger != nullptr)
      logger->warn("preemption failed", {{"pod", who}, {"error", outcome.error}});
    return {500, server::error_body(outcome.error)};
  }
  if (logger != nullptr) {
    logger->info(
        "preemption judged",
        {{"pod", who},
         {"uid", std::string(to_sv(pod->view().uid))},
         {"candidates", std::to_string(args->candidates.size())},
         {"kept", std::to_string(outcome.nodes.size())},
         {"inexact", std::to_string(outcome.inexact)},
         {"duration_ms", log::milliseconds_text(std::chrono::steady_clock::now() - started)}});
  }
  return {200, encode_preemption_result(outcome.nodes)};
}

void register_preemption_route(server::Router& router, const scheduling::Scheduler& scheduler,
                               std::size_t body_limit, const log::Logger* logger) {
  router.add(
      "POST", "/preemption", body_limit,
      [&scheduler, logger](const server::Request& request, server::Response& response) {
        PreemptionReply reply = preemption_reply(scheduler, request.body, logger);
        response.status = reply.status;
        response.content_type = "application/json";
        response.body = std::move(reply.body);
      },
      server::Execution::worker);
}

}  // namespace hami::extender
