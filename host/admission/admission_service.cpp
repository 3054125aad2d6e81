#include "admission/admission_service.hpp"

#include <rapidjson/document.h>

#include <chrono>
#include <exception>
#include <optional>
#include <stdexcept>
#include <utility>

#include "admission/json_patch.hpp"
#include "admission/json_text.hpp"
#include "admission/pod_patcher.hpp"
#include "admission/review_codec.hpp"
#include "admission/review_session.hpp"
#include "admission/unknown_resources.hpp"
#include "k8s/pod.hpp"
#include "log/logger.hpp"
#include "plugins/plugin_errors.hpp"
#include "server/http_text.hpp"

namespace hami::admission {

namespace {

// An answer for a review whose uid is known, or an HTTP 400 when it is not.
HttpReply errored(ReviewVersion version, std::string_view uid, int code, std::string_view message) {
  if (uid.empty())
    return {400, error_body(message)};
  ReviewReply reply;
  reply.version = version;
  reply.uid = uid;
  reply.allowed = false;
  reply.code = code;
  reply.message = message;
  return {200, encode_reply(reply)};
}

HttpReply errored(const ReviewError& error) {
  return errored(error.version(), error.uid(), error.code(), error.what());
}

}  // namespace

struct AdmissionService::Result {
  Result(HttpReply r, AdmissionOutcome o = AdmissionOutcome::error)  // NOLINT: errors convert
      : reply(std::move(r)), outcome(o) {}
  HttpReply reply;
  AdmissionOutcome outcome;
  // Set for a reviewed pod CREATE, for the decision log line.
  std::string namespace_;
  std::string name;
  std::string uid;
  bool uses_vgpu = false;
  size_t operations = 0;
  std::string message;
};

bool is_json_content_type(std::string_view content_type) {
  return server::ascii_iequals(server::trim_ows(content_type.substr(0, content_type.find(';'))),
                               "application/json");
}

AdmissionService::AdmissionService(std::span<const host::DevicePluginHandle> devices,
                                   const host::AdmissionPluginHandle& policy,
                                   const AdmissionClusterView* cluster, AdmissionSettings settings,
                                   const log::Logger* logger)
    : devices_(devices),
      policy_(policy),
      cluster_(cluster),
      settings_(std::move(settings)),
      logger_(logger) {}

HttpReply AdmissionService::handle(std::string_view content_type, std::string_view body) const {
  const auto started = std::chrono::steady_clock::now();
  Result result = review(content_type, body);
  if (settings_.on_outcome)
    settings_.on_outcome(result.outcome);
  if (logger_ != nullptr && !result.uid.empty()) {
    const bool denied = result.outcome == AdmissionOutcome::denied;
    if (denied || logger_->enabled(log::Level::debug)) {
      logger_->write(
          denied ? log::Level::info : log::Level::debug, denied ? "pod denied" : "pod admitted",
          {{"namespace", result.namespace_},
           {"pod", result.name},
           {"uid", result.uid},
           {"uses_vgpu", result.uses_vgpu ? "true" : "false"},
           {"operations", std::to_string(result.operations)},
           {"duration_ms", log::milliseconds_text(std::chrono::steady_clock::now() - started)},
           {"message", result.message}});
    }
  }
  return std::move(result.reply);
}

AdmissionService::Result AdmissionService::review(std::string_view content_type,
                                                  std::string_view body) const {
  ReviewDocument storage;
  ReviewRequest request;
  try {
    request = decode_review(body, storage);
  } catch (const ReviewError& e) {
    if (!is_json_content_type(content_type)) {
      // The media type is the first thing wrong; say so, with the uid when
      // the body happened to reveal one.
      return errored(e.version(), e.uid(), 400,
                     "Content-Type \"" + std::string(content_type) + "\" is not application/json");
    }
    if (logger_ != nullptr)
      logger_->info("admission review rejected", {{"error", e.what()}});
    return errored(e);
  }
  if (!is_json_content_type(content_type)) {
    return errored(request.version, request.uid, 400,
                   "Content-Type \"" + std::string(content_type) + "\" is not application/json");
  }

  ReviewReply reply;
  reply.version = request.version;
  reply.uid = request.uid;
  if (request.operation != "CREATE" || !request.targets_pod || !request.sub_resource.empty()) {
    return {HttpReply{200, encode_reply(reply)}, AdmissionOutcome::skipped};
  }
  if (request.object == nullptr) {
    return errored(request.version, request.uid, 400, "request.object is missing");
  }

  std::optional<k8s::PodModel> pod;
  try {
    pod.emplace(*request.object, request.namespace_);
  } catch (const k8s::ObjectError& e) {
    std::string message = "request.object";
    message += e.pointer().empty() ? ": " : "";
    message += e.what();
    return errored(request.version, request.uid, 400, message);
  }

  JsonPatch patch;
  PodPatcher patcher(*pod, patch);
  ReviewSession session(*pod, patcher, devices_, cluster_);
  hami_admission_input input{};
  input.struct_size = sizeof input;
  input.pod = &pod->view();
  input.scheduler_name = {settings_.scheduler_name.data(), settings_.scheduler_name.size()};
  input.dry_run = request.dry_run ? 1U : 0U;
  input.host = &session.table();

  host::AdmissionDecision decision;
  try {
    decision = policy_.review(input);
  } catch (const std::exception& e) {
    if (logger_ != nullptr)
      logger_->error("admission plugin failed", {{"error", e.what()}});
    return errored(request.version, request.uid, 500,
                   std::string("admission plugin failed: ") + e.what());
  }

  std::string patch_text;
  switch (decision.verdict) {
    case HAMI_ADMIT_ALLOW:
      if (decision.scheduler_name) {
        try {
          patcher.set_scheduler_name(*decision.scheduler_name);
        } catch (const std::invalid_argument& e) {
          return errored(request.version, request.uid, 500,
                         "admission plugin failed: " + policy_.name() + ".review: " + e.what());
        }
      }
      if (!patch.empty())
        patch_text = patch.json();
      reply.patch = patch_text;
      break;
    case HAMI_ADMIT_DENY:
      reply.allowed = false;
      reply.code = decision.code != 0 ? decision.code : 403;
      reply.reason = reply.code == 403 ? "Forbidden" : "";
      reply.message = decision.message;
      break;
    default:  // HAMI_ADMIT_SKIP: the handle admits no other verdict
      reply.message = decision.message;
      break;
  }
  std::vector<std::string> warnings;
  if (reply.allowed) {
    warnings = unknown_resource_warnings(devices_, pod->view());
    reply.warnings = warnings;
  }
  Result result(HttpReply{200, encode_reply(reply)},
                decision.verdict == HAMI_ADMIT_ALLOW  ? AdmissionOutcome::allowed
                : decision.verdict == HAMI_ADMIT_DENY ? AdmissionOutcome::denied
                                                      : AdmissionOutcome::skipped);
  result.namespace_ = request.namespace_;
  result.name = request.name;
  result.uid = request.uid;
  result.uses_vgpu = session.uses_managed();
  result.operations = patch.size();
  result.message = decision.message;
  return result;
}

}  // namespace hami::admission
