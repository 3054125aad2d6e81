#include "fake_status.hpp"

namespace hami::testing::fake {
namespace {

Json resource_details(std::string_view qualified, std::string_view name) {
  Json details = Json::object();
  details["name"] = std::string(name);
  const size_t dot = qualified.find('.');
  if (dot != std::string_view::npos) {
    details["group"] = std::string(qualified.substr(dot + 1));
    details["kind"] = std::string(qualified.substr(0, dot));
  } else {
    details["kind"] = std::string(qualified);
  }
  return details;
}

}  // namespace

std::string_view reason_for_code(int code) {
  switch (code) {
    case 400:
      return "BadRequest";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 405:
      return "MethodNotAllowed";
    case 409:
      return "Conflict";
    case 410:
      return "Expired";
    case 415:
      return "UnsupportedMediaType";
    case 422:
      return "Invalid";
    case 429:
      return "TooManyRequests";
    case 500:
      return "InternalError";
    case 503:
      return "ServiceUnavailable";
    case 504:
      return "Timeout";
    default:
      return "";
  }
}

Json status_failure(int code, std::string_view reason, std::string_view message, Json details) {
  Json s = Json::object();
  s["kind"] = "Status";
  s["apiVersion"] = "v1";
  s["metadata"] = Json::object();
  s["status"] = "Failure";
  s["message"] = std::string(message);
  s["reason"] = std::string(reason);
  if (!details.is_null()) {
    s["details"] = std::move(details);
  }
  s["code"] = code;
  return s;
}

Json status_success(int code, Json details) {
  Json s = Json::object();
  s["kind"] = "Status";
  s["apiVersion"] = "v1";
  s["metadata"] = Json::object();
  s["status"] = "Success";
  if (!details.is_null()) {
    s["details"] = std::move(details);
  }
  s["code"] = code;
  return s;
}

Json status_not_found(std::string_view qualified, std::string_view name) {
  return status_failure(404, "NotFound",
                        std::string(qualified) + " \"" + std::string(name) + "\" not found",
                        resource_details(qualified, name));
}

Json status_already_exists(std::string_view qualified, std::string_view name) {
  return status_failure(409, "AlreadyExists",
                        std::string(qualified) + " \"" + std::string(name) + "\" already exists",
                        resource_details(qualified, name));
}

Json status_conflict(std::string_view qualified, std::string_view name, std::string_view why) {
  return status_failure(409, "Conflict",
                        "Operation cannot be fulfilled on " + std::string(qualified) + " \"" +
                            std::string(name) + "\": " + std::string(why),
                        resource_details(qualified, name));
}

Json status_already_assigned(std::string_view pod, std::string_view node) {
  return status_conflict(
      "pods/binding", pod,
      "pod " + std::string(pod) + " is already assigned to node \"" + std::string(node) + "\"");
}

Json status_continue_expired() {
  return status_failure(
      410, "Expired",
      "The provided continue parameter is too old to display a consistent list result. You can "
      "start a new list without the continue parameter, or use the continue token in this "
      "response to retrieve the remainder of the results. Continuing with the provided token "
      "results in an inconsistent list - objects that were created, modified, or deleted between "
      "the time the first chunk was returned and now may show up in the list.");
}

Json status_too_old(uint64_t requested, uint64_t oldest) {
  return status_failure(410, "Expired",
                        "too old resource version: " + std::to_string(requested) + " (" +
                            std::to_string(oldest) + ")");
}

Json status_list_too_old() {
  return status_failure(410, "Expired", "The resourceVersion for the provided list is too old.");
}

Json status_too_large(uint64_t requested, uint64_t current) {
  Json cause = Json::object();
  cause["reason"] = "ResourceVersionTooLarge";
  cause["message"] = "Too large resource version";
  Json details = Json::object();
  details["causes"] = Json::array({std::move(cause)});
  details["retryAfterSeconds"] = 1;
  return status_failure(504, "Timeout",
                        "Timeout: Too large resource version: " + std::to_string(requested) +
                            ", current: " + std::to_string(current),
                        std::move(details));
}

Json status_bad_request(std::string_view message) {
  return status_failure(400, "BadRequest", message);
}

Json status_patch_invalid() {
  return status_failure(422, "Invalid",
                        "the server rejected our request due to an error in our request",
                        Json::object());
}

Json status_unauthorized() {
  return status_failure(401, "Unauthorized", "Unauthorized");
}

Json status_unknown_path() {
  return status_failure(404, "NotFound", "the server could not find the requested resource",
                        Json::object());
}

Json status_forbidden(std::string_view method, const Route& route, bool watch) {
  std::string verb = "get";
  if (method == "GET") {
    verb = watch ? "watch" : route.name.empty() ? "list" : "get";
  } else if (method == "POST") {
    verb = "create";
  } else if (method == "PUT") {
    verb = "update";
  } else if (method == "PATCH") {
    verb = "patch";
  } else if (method == "DELETE") {
    verb = route.name.empty() ? "deletecollection" : "delete";
  }
  const KindInfo& kind = *route.kind;
  std::string resource(kind.resource);
  if (!route.subresource.empty())
    resource += "/" + route.subresource;
  std::string why = "User \"system:anonymous\" cannot " + verb + " resource \"" + resource +
                    "\" in API group \"" + std::string(kind.group) + "\" ";
  why += route.ns.empty() ? "at the cluster scope" : "in the namespace \"" + route.ns + "\"";
  Json details = Json::object();
  std::string message = kind.qualified_resource();
  if (!route.name.empty()) {
    message += " \"" + route.name + "\"";
    details["name"] = route.name;
  }
  if (!kind.group.empty())
    details["group"] = std::string(kind.group);
  details["kind"] = std::string(kind.resource);
  return status_failure(403, "Forbidden", message + " is forbidden: " + why, std::move(details));
}

Json status_fault(int code, std::optional<int> retry_after_seconds, std::string_view qualified,
                  std::string_view name) {
  switch (code) {
    case 409:
      if (!name.empty()) {
        return status_conflict(qualified, name, kObjectModified);
      }
      return status_failure(409, "Conflict",
                            "Operation cannot be fulfilled: " + std::string(kObjectModified));
    case 410:
      return status_failure(410, "Expired",
                            "The resourceVersion for the provided list is too old.");
    case 429: {
      Json details = Json::object();
      details["retryAfterSeconds"] = retry_after_seconds.value_or(1);
      return status_failure(429, "TooManyRequests", "Too many requests, please try again later.",
                            std::move(details));
    }
    case 500: {
      Json cause = Json::object();
      cause["message"] = "injected fault";
      Json details = Json::object();
      details["causes"] = Json::array({cause});
      return status_failure(500, "InternalError", "Internal error occurred: injected fault",
                            std::move(details));
    }
    case 503:
      return status_failure(503, "ServiceUnavailable",
                            "the server is currently unable to handle the request");
    default:
      return status_failure(code, reason_for_code(code),
                            "the server responded with the status code " + std::to_string(code));
  }
}

}  // namespace hami::testing::fake
