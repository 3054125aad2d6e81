// Bad input to the service: every malformed request gets a well-formed,
// exact answer (an errored AdmissionReview when the uid could be read,
// HTTP 400 with {"error": ...} otherwise) and the service keeps serving.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "admission/admission_service.hpp"
#include "memory_cluster_view.hpp"
#include "plugin_set.hpp"

namespace hami::admission {
namespace {

using testing::PluginSet;

class ServiceErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    plugins.vendors().admission("vgpu", "{}");
    service.emplace(plugins.devices(), plugins.policy(), nullptr, AdmissionSettings{});
  }
  HttpReply handle(std::string_view body, std::string_view type = "application/json") const {
    return service->handle(type, body);
  }

  PluginSet plugins;
  std::optional<AdmissionService> service;
};

std::string review(std::string_view request_members,
                   std::string_view version = "admission.k8s.io/v1") {
  return R"({"apiVersion":")" + std::string(version) +
         R"(","kind":"AdmissionReview","request":{"uid":"u-1",)" + std::string(request_members) +
         "}}";
}

std::string create(std::string_view object) {
  return review(R"("kind":{"group":"","version":"v1","kind":"Pod"},"operation":"CREATE",)"
                R"("namespace":"ml","object":)" +
                std::string(object));
}

std::string errored(std::string_view message, int code = 400,
                    std::string_view version = "admission.k8s.io/v1") {
  std::string quoted = nlohmann::json(std::string(message)).dump();
  return R"({"kind":"AdmissionReview","apiVersion":")" + std::string(version) +
         R"(","response":{"uid":"u-1","allowed":false,"status":{"metadata":{},"message":)" +
         quoted + R"(,"code":)" + std::to_string(code) + "}}}";
}

std::string error_json(std::string_view message) {
  return R"({"error":)" + nlohmann::json(std::string(message)).dump() + "}";
}

TEST_F(ServiceErrors, UnreadableBodiesAreHttp400) {
  const std::pair<std::string, std::string> cases[] = {
      {"", "request body is empty"},
      {"{not json",
       "request body is not valid JSON: Missing a name for object member. (at byte 1)"},
      {"[]", "AdmissionReview must be a JSON object, got an array"},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"})", "request is missing"},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"operation":"CREATE"}})",
       "request.uid is missing"},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":"x"})",
       "request must be an object, got a string"}};
  for (const auto& [body, message] : cases) {
    const HttpReply reply = handle(body);
    EXPECT_EQ(reply.status, 400) << body;
    EXPECT_EQ(reply.body, error_json(message)) << body;
  }
}

TEST_F(ServiceErrors, EnvelopeErrorsWithAUidAreErroredReviews) {
  const HttpReply kind = handle(R"({"apiVersion":"admission.k8s.io/v1beta1","kind":"Pod",)"
                                R"("request":{"uid":"u-1","operation":"CREATE"}})");
  EXPECT_EQ(kind.status, 200);
  EXPECT_EQ(kind.body,
            errored(R"(kind "Pod" is not AdmissionReview)", 400, "admission.k8s.io/v1beta1"));
  const HttpReply version =
      handle(R"({"apiVersion":"v1","kind":"AdmissionReview","request":{"uid":"u-1"}})");
  EXPECT_EQ(version.status, 200);
  EXPECT_EQ(version.body,
            errored(R"(apiVersion "v1" is not supported; expected admission.k8s.io/v1 or )"
                    "admission.k8s.io/v1beta1"));
  EXPECT_EQ(handle(review(R"("operation":7)")).body,
            errored("request.operation must be a string, got a number"));
  EXPECT_EQ(handle(review(R"("operation":"CREATE","dryRun":"no")")).body,
            errored("request.dryRun must be a boolean, got a string"));
}

TEST_F(ServiceErrors, MissingOrMalformedPodObjects) {
  EXPECT_EQ(handle(review(R"("operation":"CREATE")")).body, errored("request.object is missing"));
  EXPECT_EQ(handle(create("null")).body, errored("request.object is missing"));
  EXPECT_EQ(handle(create("[]")).body,
            errored("request.object: expected a Pod object, got an array"));
  EXPECT_EQ(handle(create(R"("pod")")).body,
            errored("request.object: expected a Pod object, got a string"));
  EXPECT_EQ(handle(create(R"({"spec":{"containers":[{"name":"c","resources":{"limits":)"
                          R"({"nvidia.com/gpu":true}}}]}})"))
                .body,
            errored("request.object/spec/containers/0/resources/limits/nvidia.com~1gpu: "
                    "expected a quantity (string or number), got a boolean"));
  EXPECT_EQ(handle(create(R"({"metadata":{"annotations":{"a":1}},"spec":{}})")).body,
            errored("request.object/metadata/annotations/a: expected a string, got a number"));
  EXPECT_EQ(handle(create(R"({"spec":{"containers":"all"}})")).body,
            errored("request.object/spec/containers: expected an array, got a string"));
}

TEST_F(ServiceErrors, ObjectsOfOtherOperationsAreNotInspected) {
  const std::string allowed =
      R"({"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":)"
      R"({"uid":"u-1","allowed":true,"status":{"metadata":{},"code":200}}})";
  EXPECT_EQ(handle(review(R"("operation":"DELETE","object":5)")).body, allowed);
  EXPECT_EQ(handle(review(R"("operation":"CONNECT")")).body, allowed);
  EXPECT_EQ(handle(review(R"("operation":"CREATE","subResource":"binding","object":{})")).body,
            allowed);
  EXPECT_EQ(handle(review(R"("operation":"CREATE","kind":{"group":"apps","version":"v1",)"
                          R"("kind":"Deployment"},"object":[])"))
                .body,
            allowed);
}

TEST_F(ServiceErrors, ContentTypeMustBeJson) {
  const std::string body = create(R"({"spec":{"containers":[{"name":"c"}]}})");
  EXPECT_EQ(handle(body, "text/plain").status, 200);
  EXPECT_EQ(handle(body, "text/plain").body,
            errored(R"(Content-Type "text/plain" is not application/json)"));
  EXPECT_EQ(handle(body, "application/jsonx").body,
            errored(R"(Content-Type "application/jsonx" is not application/json)"));
  const HttpReply unreadable = handle("garbage", "");
  EXPECT_EQ(unreadable.status, 400);
  EXPECT_EQ(unreadable.body, error_json(R"(Content-Type "" is not application/json)"));
  for (const std::string_view ok : {"application/json", "application/json; charset=utf-8",
                                    "APPLICATION/JSON", " application/json "}) {
    const HttpReply reply = handle(body, ok);
    EXPECT_EQ(reply.status, 200) << ok;
    EXPECT_NE(reply.body.find(R"("allowed":true)"), std::string::npos) << ok;
  }
}

TEST_F(ServiceErrors, KeepsServingAfterBadInput) {
  for (int i = 0; i < 50; ++i) {
    (void)handle(std::string(static_cast<size_t>(i) * 997 % 4096, '{'));
    (void)handle(create(std::string(static_cast<size_t>(i), '[')));
  }
  const HttpReply good =
      handle(create(R"({"spec":{"containers":[{"name":"c","resources":)"
                    R"({"limits":{"nvidia.com/gpu":"1","nvidia.com/gpumem":"100"}}}]}})"));
  EXPECT_EQ(good.status, 200);
  EXPECT_NE(good.body.find(R"("patchType":"JSONPatch")"), std::string::npos);
}

}  // namespace
}  // namespace hami::admission
