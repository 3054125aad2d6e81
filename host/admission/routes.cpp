#include "admission/routes.hpp"

namespace hami::admission {

void register_admission_routes(server::Router& router, const AdmissionService& service,
                               std::size_t body_limit) {
  const auto handler = [&service](const server::Request& request, server::Response& response) {
    HttpReply reply = service.handle(request.content_type, request.body);
    response.status = reply.status;
    response.content_type = "application/json";
    response.body = std::move(reply.body);
  };
  // The decision reads only the cluster cache: it runs on the event loop
  // that read the review, without a thread switch.
  router.add("POST", "/mutate-pod", body_limit, handler, server::Execution::inline_loop);
  router.add("POST", "/webhook", body_limit, handler, server::Execution::inline_loop);
}

}  // namespace hami::admission
