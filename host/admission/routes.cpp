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
  router.add("POST", "/mutate-pod", body_limit, handler);
  router.add("POST", "/webhook", body_limit, handler);
}

}  // namespace hami::admission
