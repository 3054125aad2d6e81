#include "extender/explain_route.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <stdexcept>

#include "k8s/object_error.hpp"
#include "server/http_types.hpp"
#include "server/router.hpp"

namespace hami::extender {

k8s::PodModel decode_explain_pod(std::string_view body) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError()) {
    throw std::invalid_argument("invalid JSON at offset " + std::to_string(doc.GetErrorOffset()) +
                                ": " + rapidjson::GetParseError_En(doc.GetParseError()));
  }
  if (!doc.IsObject())
    throw std::invalid_argument("the body is not a Pod object");
  if (const auto kind = doc.FindMember("kind"); kind != doc.MemberEnd()) {
    if (!kind->value.IsString() || std::string_view(kind->value.GetString()) != "Pod")
      throw std::invalid_argument("the body is not a Pod object: kind is not \"Pod\"");
  }
  try {
    return k8s::PodModel(doc);
  } catch (const k8s::ObjectError& e) {
    throw std::invalid_argument(std::string("the Pod cannot be read: ") + e.what());
  }
}

ExplainReply explain_reply(const scheduling::Scheduler& scheduler, std::string_view body) {
  try {
    const k8s::PodModel pod = decode_explain_pod(body);
    const scheduling::Explanation e = scheduler.explain(pod);
    if (!e.error.empty())
      return {400, server::error_body("pod " + e.pod + " cannot be scheduled: " + e.error)};
    return {200, scheduling::explanation_json(e)};
  } catch (const std::invalid_argument& e) {
    return {400, server::error_body(e.what())};
  } catch (const std::exception& e) {
    return {500, server::error_body(e.what())};
  }
}

void register_explain_route(server::Router& router, const scheduling::Scheduler& scheduler,
                            std::size_t body_limit) {
  router.add(
      "POST", "/explain", body_limit,
      [&scheduler](server::Request& request, server::Response& response) {
        ExplainReply reply = explain_reply(scheduler, request.body);
        response.status = reply.status;
        response.content_type = "application/json";
        response.body = std::move(reply.body);
      },
      server::RouteOptions(server::Execution::worker, false));
}

}  // namespace hami::extender
