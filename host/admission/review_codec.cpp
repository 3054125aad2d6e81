#include "admission/review_codec.hpp"

#include <rapidjson/error/en.h>

#include <charconv>
#include <optional>

#include "admission/json_text.hpp"
#include "k8s/json_brackets.hpp"
#include "k8s/json_read.hpp"
#include "platform/base64.hpp"

namespace hami::admission {

namespace {

// Recursion depth that RapidJSON's recursive reader may reach safely on a
// server or fuzzing thread's stack (a few hundred bytes per level).
constexpr std::size_t kRecursiveParseDepth = 512;

using k8s::json::member;
using k8s::json::type_name;
using k8s::json::view_of;
using rapidjson::Value;

constexpr std::string_view kV1 = "admission.k8s.io/v1";
constexpr std::string_view kV1beta1 = "admission.k8s.io/v1beta1";

// What has been learnt about the review so far, for error replies.
struct Known {
  std::string uid;
  ReviewVersion version = ReviewVersion::V1;

  [[noreturn]] void fail(const std::string& message) const {
    throw ReviewError(400, message, uid, version);
  }

  [[noreturn]] void wrong_type(std::string_view name, std::string_view expected,
                               const Value& found) const {
    std::string message(name);
    message += " must be ";
    message += expected;
    message += ", got ";
    message += type_name(found);
    fail(message);
  }

  std::optional<std::string_view> string(const Value& object, std::string_view key,
                                         std::string_view name) const {
    const Value* found = member(object, key);
    if (found == nullptr)
      return std::nullopt;
    if (!found->IsString())
      wrong_type(name, "a string", *found);
    return view_of(*found);
  }

  // Checks an optional {group, version, kind|resource} member; true when it
  // names core/v1 `expected` (in the member `field`), nullopt when absent.
  std::optional<bool> names_core_v1(const Value& request, std::string_view key,
                                    std::string_view field, std::string_view expected) const {
    const Value* gvk = member(request, key);
    if (gvk == nullptr)
      return std::nullopt;
    const std::string name = "request." + std::string(key);
    if (!gvk->IsObject())
      wrong_type(name, "an object", *gvk);
    const auto group = string(*gvk, "group", name + ".group").value_or("");
    const auto gv = string(*gvk, "version", name + ".version").value_or("");
    const auto value = string(*gvk, field, name + "." + std::string(field)).value_or("");
    return group.empty() && gv == "v1" && value == expected;
  }
};

std::optional<ReviewVersion> version_named(std::string_view text) {
  if (text == kV1)
    return ReviewVersion::V1;
  if (text == kV1beta1)
    return ReviewVersion::V1beta1;
  return std::nullopt;
}

std::string quoted(std::string_view text) {
  std::string out;
  append_json_string(out, text);
  return out;
}

}  // namespace

std::string_view api_version_of(ReviewVersion version) noexcept {
  return version == ReviewVersion::V1beta1 ? kV1beta1 : kV1;
}

ReviewRequest decode_review(std::string_view body, ReviewDocument& storage) {
  Known known;
  if (body.empty())
    known.fail("request body is empty");
  // Checking the encoding up front (mostly ASCII, eight bytes a step) is
  // cheaper than RapidJSON's per-character check inside strings, and also
  // covers bytes outside strings.
  if (const size_t valid = valid_utf8_prefix(body); valid != body.size()) {
    known.fail("request body is not valid UTF-8 (at byte " + std::to_string(valid) + ")");
  }
  // JSON text never holds a raw NUL; the in-place parse below would take
  // one for the end of the input.
  if (const size_t nul = body.find('\0'); nul != std::string_view::npos) {
    known.fail("request body is not valid JSON: a NUL byte (at byte " + std::to_string(nul) + ")");
  }
  // In place: the copy's strings become the document's strings. A text
  // that could nest deeper than kRecursiveParseDepth is parsed iteratively,
  // so it cannot exhaust the stack; every real review is far below that
  // and gets RapidJSON's faster recursive reader.
  storage.text.assign(body);
  rapidjson::Document& doc = storage.doc;
  if (k8s::json_open_brackets(body) <= kRecursiveParseDepth)
    doc.ParseInsitu(storage.text.data());
  else
    doc.ParseInsitu<rapidjson::kParseIterativeFlag>(storage.text.data());
  if (doc.HasParseError()) {
    std::string message = "request body is not valid JSON: ";
    message += rapidjson::GetParseError_En(doc.GetParseError());
    message += " (at byte ";
    message += std::to_string(doc.GetErrorOffset());
    message += ')';
    known.fail(message);
  }
  if (!doc.IsObject())
    known.wrong_type("AdmissionReview", "a JSON object", doc);

  // Learn the version and uid first, leniently, so that every later error
  // can still be answered as an AdmissionReview the API server accepts.
  const Value* api_version = member(doc, "apiVersion");
  if (api_version != nullptr && api_version->IsString()) {
    known.version = version_named(view_of(*api_version)).value_or(ReviewVersion::V1);
  }
  const Value* request = member(doc, "request");
  if (request != nullptr && request->IsObject()) {
    // A uid that is not UTF-8 (JSON can smuggle lone surrogates in through
    // \u escapes) could not be echoed unchanged, so it is never "known".
    const Value* uid = member(*request, "uid");
    if (uid != nullptr && uid->IsString() && is_valid_utf8(view_of(*uid))) {
      known.uid.assign(uid->GetString(), uid->GetStringLength());
    }
  }

  const auto api_text = known.string(doc, "apiVersion", "apiVersion");
  if (!api_text)
    known.fail("apiVersion is missing; expected admission.k8s.io/v1 or v1beta1");
  if (!version_named(*api_text)) {
    known.fail("apiVersion " + quoted(*api_text) +
               " is not supported; expected admission.k8s.io/v1 or admission.k8s.io/v1beta1");
  }
  const auto kind = known.string(doc, "kind", "kind");
  if (!kind)
    known.fail("kind is missing; expected AdmissionReview");
  if (*kind != "AdmissionReview")
    known.fail("kind " + quoted(*kind) + " is not AdmissionReview");
  if (request == nullptr)
    known.fail("request is missing");
  if (!request->IsObject())
    known.wrong_type("request", "an object", *request);
  const auto uid = known.string(*request, "uid", "request.uid");
  if (!uid || uid->empty())
    known.fail("request.uid is missing");
  if (!is_valid_utf8(*uid))
    known.fail("request.uid is not valid UTF-8");

  ReviewRequest out;
  out.version = known.version;
  out.uid = *uid;
  const auto operation = known.string(*request, "operation", "request.operation");
  if (!operation || operation->empty())
    known.fail("request.operation is missing");
  out.operation = *operation;
  out.namespace_ = known.string(*request, "namespace", "request.namespace").value_or("");
  out.name = known.string(*request, "name", "request.name").value_or("");
  out.sub_resource = known.string(*request, "subResource", "request.subResource").value_or("");
  if (const auto is_pod = known.names_core_v1(*request, "kind", "kind", "Pod")) {
    out.targets_pod = *is_pod;
  } else if (const auto is_pods = known.names_core_v1(*request, "resource", "resource", "pods")) {
    out.targets_pod = *is_pods;
  }
  if (const Value* dry_run = member(*request, "dryRun")) {
    if (!dry_run->IsBool())
      known.wrong_type("request.dryRun", "a boolean", *dry_run);
    out.dry_run = dry_run->GetBool();
  }
  out.object = member(*request, "object");
  return out;
}

std::string encode_reply(const ReviewReply& reply) {
  std::string out;
  out.reserve(160 + reply.uid.size() + reply.message.size() + reply.patch.size() * 4 / 3);
  out += R"({"kind":"AdmissionReview","apiVersion":")";
  out += api_version_of(reply.version);
  out += R"(","response":{"uid":)";
  append_json_string(out, reply.uid);
  out += reply.allowed ? R"(,"allowed":true)" : R"(,"allowed":false)";
  out += R"(,"status":{"metadata":{})";
  if (!reply.message.empty()) {
    out += R"(,"message":)";
    append_json_string(out, reply.message);
  }
  if (!reply.reason.empty()) {
    out += R"(,"reason":)";
    append_json_string(out, reply.reason);
  }
  out += R"(,"code":)";
  char digits[16];
  const auto end = std::to_chars(digits, digits + sizeof digits, reply.code).ptr;
  out.append(digits, end);
  out.push_back('}');
  if (!reply.patch.empty()) {
    out += R"(,"patch":")";
    platform::append_base64(out, reply.patch);
    out += R"(","patchType":"JSONPatch")";
  }
  if (!reply.warnings.empty()) {
    out += R"(,"warnings":[)";
    for (size_t i = 0; i < reply.warnings.size(); ++i) {
      if (i != 0)
        out.push_back(',');
      append_json_string(out, reply.warnings[i]);
    }
    out.push_back(']');
  }
  out += "}}";
  return out;
}

std::string error_body(std::string_view message) {
  std::string out = R"({"error":)";
  append_json_string(out, message);
  out.push_back('}');
  return out;
}

}  // namespace hami::admission
