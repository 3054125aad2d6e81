#include "ops/simulate_admission.hpp"

#include <rapidjson/document.h>
#include <rapidjson/pointer.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <stdexcept>
#include <utility>

#include "k8s/json_read.hpp"
#include "platform/base64.hpp"

namespace hami::ops {

namespace {

using k8s::json::member;
using rapidjson::Value;

std::string to_text(const Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return {buffer.GetString(), buffer.GetSize()};
}

}  // namespace

std::string apply_json_patch(std::string_view json, std::string_view patch) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError())
    throw std::invalid_argument("the pod is not JSON");
  rapidjson::Document ops;
  ops.Parse(patch.data(), patch.size());
  if (ops.HasParseError() || !ops.IsArray())
    throw std::invalid_argument("the patch is not a JSON array");
  for (const Value& op : ops.GetArray()) {
    const Value* name = op.IsObject() ? member(op, "op") : nullptr;
    const Value* path = op.IsObject() ? member(op, "path") : nullptr;
    const Value* value = op.IsObject() ? member(op, "value") : nullptr;
    if (name == nullptr || !name->IsString() || path == nullptr || !path->IsString() ||
        value == nullptr) {
      throw std::invalid_argument("a patch operation needs op, path and value");
    }
    const std::string_view kind = k8s::json::view_of(*name);
    if (kind != "add" && kind != "replace")
      throw std::invalid_argument("patch operation \"" + std::string(kind) + "\" is not applied");
    const rapidjson::Pointer pointer(path->GetString(), path->GetStringLength());
    if (!pointer.IsValid() || pointer.GetTokenCount() == 0)
      throw std::invalid_argument("patch path \"" + std::string(path->GetString()) + "\"");
    // The parent must exist (RFC 6902 4.1); Set would create it.
    const rapidjson::Pointer parent(pointer.GetTokens(), pointer.GetTokenCount() - 1);
    const Value* container = parent.Get(doc);
    if (container == nullptr || !(container->IsObject() || container->IsArray())) {
      throw std::invalid_argument("patch path \"" + std::string(path->GetString()) +
                                  "\": no parent to add to");
    }
    pointer.Set(doc, Value(*value, doc.GetAllocator()));
  }
  return to_text(doc);
}

SimulatedAdmission::SimulatedAdmission(std::span<const host::DevicePluginHandle> devices,
                                       const host::AdmissionPluginHandle* policy,
                                       const admission::AdmissionClusterView* view,
                                       std::string scheduler_name) {
  if (policy != nullptr) {
    admission::AdmissionSettings settings;
    settings.scheduler_name = std::move(scheduler_name);
    service_ =
        std::make_unique<admission::AdmissionService>(devices, *policy, view, std::move(settings));
  }
}

AdmittedPod SimulatedAdmission::admit(std::string_view pod_json,
                                      std::string_view namespace_) const {
  AdmittedPod out;
  if (!service_) {
    out.verdict = AdmittedPod::Verdict::allowed;
    out.json = pod_json;
    return out;
  }
  std::string body =
      R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"simulate",)"
      R"("kind":{"group":"","version":"v1","kind":"Pod"},)"
      R"("resource":{"group":"","version":"v1","resource":"pods"},"operation":"CREATE","namespace":)";
  {
    Value ns(rapidjson::StringRef(namespace_.data(), namespace_.size()));
    body += to_text(ns);
  }
  body += R"(,"object":)";
  body += pod_json;
  body += "}}";
  const admission::HttpReply reply = service_->handle("application/json", body);
  rapidjson::Document doc;
  doc.Parse(reply.body.data(), reply.body.size());
  const Value* response = doc.IsObject() ? member(doc, "response") : nullptr;
  if (reply.status != 200 || response == nullptr || !response->IsObject()) {
    out.message = "admission review failed: " + reply.body;
    return out;
  }
  const Value* allowed = member(*response, "allowed");
  if (allowed == nullptr || !allowed->IsBool() || !allowed->GetBool()) {
    const Value* status = member(*response, "status");
    const Value* code = status != nullptr ? member(*status, "code") : nullptr;
    out.verdict = code != nullptr && code->IsInt() && code->GetInt() >= 500
                      ? AdmittedPod::Verdict::error
                      : AdmittedPod::Verdict::denied;
    out.message = status != nullptr ? k8s::json::string_or_empty(*status, "message") : "";
    return out;
  }
  const std::string patch64 = k8s::json::string_or_empty(*response, "patch");
  try {
    if (patch64.empty()) {
      out.json = pod_json;
    } else {
      const auto patch = platform::base64_decode(patch64);
      if (!patch)
        throw std::invalid_argument("the patch is not base64");
      out.json = apply_json_patch(pod_json, *patch);
    }
  } catch (const std::invalid_argument& e) {
    out.message = std::string("admission patch not applied: ") + e.what();
    return out;
  }
  out.verdict = AdmittedPod::Verdict::allowed;
  return out;
}

}  // namespace hami::ops
