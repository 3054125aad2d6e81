// AdmissionService: one mutating-webhook call, from HTTP body to HTTP reply.
//
//  - Content-Type must be application/json (parameters such as charset are
//    allowed); anything else is a 400.
//  - Malformed reviews (review_codec.hpp), a missing or malformed pod
//    object (the PodModel's ObjectError, prefixed "request.object") and
//    body problems are answered with HTTP 200 and an errored AdmissionReview
//    (allowed false, status.code 400, a message naming the problem) when the
//    uid could be read, otherwise with HTTP 400 and {"error": "..."}.
//  - Anything but a pod CREATE (UPDATE, DELETE, CONNECT, other kinds,
//    subresources) is allowed unchanged.
//  - A pod CREATE goes to the admission plugin with this review's host
//    services. ALLOW → allowed with the recorded mutations plus
//    spec.schedulerName when the plugin named one, as a JSON Patch
//    (patchType only when non-empty); DENY → allowed false with the
//    plugin's code (403 "Forbidden" when it gave none) and message; SKIP →
//    allowed unchanged with the plugin's message. A failing plugin call is
//    an errored review with code 500, "admission plugin failed: <plugin>.
//    review: <message>".
//  - An allowed pod CREATE carries `warnings` for resource names under a
//    device plugin's domain that no plugin reads (unknown_resources.hpp).
//  - dryRun requests are handled like any other (the webhook has no side
//    effects).
// Thread-safe: handle() is const and keeps no per-call state in the object.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "admission/cluster_view.hpp"
#include "plugins/admission_plugin_handle.hpp"
#include "plugins/device_plugin_handle.hpp"

namespace hami::log {
class Logger;
}

namespace hami::admission {

// What one call decided, for metrics: allowed (ALLOW), skipped (SKIP, or
// a request the webhook does not review: not a pod CREATE), denied (DENY),
// error (the review could not be read or the plugin failed).
enum class AdmissionOutcome { allowed, skipped, denied, error };

struct AdmissionSettings {
  // Passed to the admission plugin as the host's scheduler name.
  std::string scheduler_name = "hami-scheduler";
  // Told the outcome of every call, on the calling thread; may be empty.
  std::function<void(AdmissionOutcome)> on_outcome;
};

struct HttpReply {
  int status = 200;
  std::string body;  // always JSON
};

class AdmissionService {
 public:
  // All references must outlive the service; `cluster` and `logger` may be
  // null (no quota or namespace information; no logging).
  AdmissionService(std::span<const host::DevicePluginHandle> devices,
                   const host::AdmissionPluginHandle& policy, const AdmissionClusterView* cluster,
                   AdmissionSettings settings, const log::Logger* logger = nullptr);

  HttpReply handle(std::string_view content_type, std::string_view body) const;

 private:
  struct Result;
  Result review(std::string_view content_type, std::string_view body) const;

  std::span<const host::DevicePluginHandle> devices_;
  const host::AdmissionPluginHandle& policy_;
  const AdmissionClusterView* cluster_;
  AdmissionSettings settings_;
  const log::Logger* logger_;
};

// True for "application/json", case-insensitively, with or without
// parameters ("application/json; charset=utf-8").
bool is_json_content_type(std::string_view content_type);

}  // namespace hami::admission
