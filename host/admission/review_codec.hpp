// The AdmissionReview wire format (admission.k8s.io/v1 and v1beta1):
// decoding the API server's request and encoding our reply envelope.
//
// Decoding contract:
//  - The body must be UTF-8 (validated first) JSON, one value, an object with
//    apiVersion admission.k8s.io/v1 or /v1beta1, kind AdmissionReview and a
//    `request` object carrying a non-empty UTF-8 string `uid` and an
//    `operation`.
//  - Members this webhook reads must have their JSON type (null = absent);
//    others are not looked at.
//  - Anything else throws ReviewError with HTTP-style code 400 and a message
//    naming the member and the problem. The error carries the uid and the
//    version whenever they could be read, so the caller can still answer
//    with an errored AdmissionReview.
//  - Parsing is iterative (no recursion), so deeply nested input cannot
//    exhaust the stack, and in place: the body is copied once into
//    ReviewDocument::text and the document's strings point into that copy
//    (no allocation per string; about twice as fast as copying parsing).
//
// Encoding contract: the reply mirrors controller-runtime's (what HAMi
// sends): {"kind":"AdmissionReview","apiVersion":<request's>,"response":
// {"uid":..,"allowed":..,"status":{"metadata":{},["message":..,]
// ["reason":..,]"code":..}[,"patch":<base64>,"patchType":"JSONPatch"]}}.
// patch/patchType appear only for a non-empty patch; then
// [,"warnings":[..]] when there are warnings.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace hami::admission {

enum class ReviewVersion : uint8_t { V1, V1beta1 };

// "admission.k8s.io/v1" or "admission.k8s.io/v1beta1".
std::string_view api_version_of(ReviewVersion version) noexcept;

// Storage of one decoded review: the parsed document and the text its
// strings point into. Keep it alive as long as any view into it.
struct ReviewDocument {
  std::string text;
  rapidjson::Document doc;
};

// The request part of a decoded AdmissionReview. Views point into the
// ReviewDocument passed to decode_review.
struct ReviewRequest {
  ReviewVersion version = ReviewVersion::V1;
  std::string_view uid;
  std::string_view operation;  // "CREATE", "UPDATE", "DELETE", "CONNECT"
  std::string_view namespace_;
  std::string_view name;
  std::string_view sub_resource;
  // request.kind is core/v1 Pod (or, without kind, request.resource is
  // core/v1 pods; with neither, the webhook is registered for pods only).
  bool targets_pod = true;
  bool dry_run = false;
  const rapidjson::Value* object = nullptr;  // request.object; nullptr when absent or null
};

class ReviewError : public std::runtime_error {
 public:
  ReviewError(int code, const std::string& message, std::string uid, ReviewVersion version)
      : std::runtime_error(message), code_(code), uid_(std::move(uid)), version_(version) {}

  int code() const noexcept { return code_; }
  // Empty when no uid could be read.
  const std::string& uid() const noexcept { return uid_; }
  ReviewVersion version() const noexcept { return version_; }

 private:
  int code_;
  std::string uid_;
  ReviewVersion version_;
};

// Parses `body` into `storage` (which must outlive the returned views).
// Throws ReviewError.
ReviewRequest decode_review(std::string_view body, ReviewDocument& storage);

// What we answer.
struct ReviewReply {
  ReviewVersion version = ReviewVersion::V1;
  std::string_view uid;
  bool allowed = true;
  int32_t code = 200;
  std::string_view message;  // omitted when empty
  std::string_view reason;   // omitted when empty (e.g. "Forbidden" for denials)
  std::string_view patch;    // JSON Patch text; omitted (with patchType) when empty
  // response.warnings (shown by kubectl), last; omitted when empty.
  std::span<const std::string> warnings;
};

std::string encode_reply(const ReviewReply& reply);

// {"error":"<message>"}: the body of an HTTP 400 when no uid could be read.
std::string error_body(std::string_view message);

}  // namespace hami::admission
