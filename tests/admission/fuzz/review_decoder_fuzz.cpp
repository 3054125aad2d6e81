// Fuzz target: the AdmissionReview decoder and the pod model behind it.
// Any input must either decode or fail with ReviewError / ObjectError, and
// whatever the webhook would answer (the reply envelope with the decoded
// uid, or the error body with the error message) must be valid JSON that
// carries those strings unchanged.
#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "admission/review_codec.hpp"
#include "k8s/pod.hpp"

namespace {

using hami::admission::ReviewError;

void require(bool condition) {
  if (!condition)
    __builtin_trap();
}

// The reply text parses and its response.uid / status.message are exact.
void check_reply(const std::string& text, std::string_view uid, std::string_view message) {
  rapidjson::Document doc;
  doc.Parse(text.data(), text.size());
  require(!doc.HasParseError() && doc.IsObject());
  const auto& response = doc["response"];
  require(std::string_view(response["uid"].GetString(), response["uid"].GetStringLength()) == uid);
  if (!message.empty()) {
    const auto& m = response["status"]["message"];
    require(std::string_view(m.GetString(), m.GetStringLength()) == message);
  }
}

void check_error_body(const std::string& message) {
  const std::string body = hami::admission::error_body(message);
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  require(!doc.HasParseError() && doc.IsObject() && doc["error"].IsString());
  require(std::string_view(doc["error"].GetString(), doc["error"].GetStringLength()) == message);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  hami::admission::ReviewDocument doc;
  hami::admission::ReviewRequest request;
  try {
    request = hami::admission::decode_review(body, doc);
  } catch (const ReviewError& e) {
    require(e.code() == 400);
    if (e.uid().empty()) {
      check_error_body(e.what());
    } else {
      hami::admission::ReviewReply reply;
      reply.version = e.version();
      reply.uid = e.uid();
      reply.allowed = false;
      reply.code = e.code();
      reply.message = e.what();
      check_reply(hami::admission::encode_reply(reply), e.uid(), e.what());
    }
    return 0;
  }
  require(!request.uid.empty() && !request.operation.empty());
  std::string message;
  if (request.object != nullptr) {
    try {
      const hami::k8s::PodModel pod(*request.object, request.namespace_);
      const hami_pod_view& view = pod.view();
      require(view.init_count <= view.containers_len);
      for (size_t i = 0; i < view.containers_len; ++i) {
        require(view.containers[i].is_init == (i < view.init_count ? 1U : 0U));
      }
    } catch (const hami::k8s::ObjectError& e) {
      message = std::string("request.object") + e.what();
    }
  }
  hami::admission::ReviewReply reply;
  reply.version = request.version;
  reply.uid = request.uid;
  reply.allowed = message.empty();
  reply.code = message.empty() ? 200 : 400;
  reply.message = message;
  check_reply(hami::admission::encode_reply(reply), request.uid, message);
  return 0;
}
