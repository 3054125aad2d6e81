#include "admission/review_codec.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "test_data.hpp"

namespace hami::admission {
namespace {

using testing::data_file;

struct Failure {
  int code = 0;
  std::string message;
  std::string uid;
  ReviewVersion version = ReviewVersion::V1;
};

Failure failure_of(std::string_view body) {
  ReviewDocument doc;
  try {
    (void)decode_review(body, doc);
  } catch (const ReviewError& e) {
    return {e.code(), e.what(), e.uid(), e.version()};
  }
  return {0, "decoded", "", ReviewVersion::V1};
}

void expect_failure(std::string_view body, std::string_view message, std::string_view uid = "",
                    ReviewVersion version = ReviewVersion::V1) {
  const Failure f = failure_of(body);
  const std::string_view shown = body.substr(0, 120);
  EXPECT_EQ(f.code, 400) << shown;
  EXPECT_EQ(f.message, message) << shown;
  EXPECT_EQ(f.uid, uid) << shown;
  EXPECT_EQ(f.version, version) << shown;
}

TEST(ReviewDecode, RealisticPodCreate) {
  const std::string body = data_file("admission-gpu.json");
  ReviewDocument doc;
  const ReviewRequest r = decode_review(body, doc);
  EXPECT_EQ(r.version, ReviewVersion::V1);
  EXPECT_EQ(r.uid, "705ab4f5-6393-11e8-b7cc-42010a800002");
  EXPECT_EQ(r.operation, "CREATE");
  EXPECT_EQ(r.namespace_, "ml-serving");
  EXPECT_EQ(r.name, "");
  EXPECT_EQ(r.sub_resource, "");
  EXPECT_TRUE(r.targets_pod);
  EXPECT_FALSE(r.dry_run);
  ASSERT_NE(r.object, nullptr);
  EXPECT_TRUE(r.object->IsObject());
  EXPECT_STREQ((*r.object)["metadata"]["generateName"].GetString(), "llm-infer-7d9f8b6c4-");
  // Strings live in the storage's own copy of the body.
  const char* name = (*r.object)["metadata"]["generateName"].GetString();
  EXPECT_TRUE(name >= doc.text.data() && name < doc.text.data() + doc.text.size());
}

TEST(ReviewDecode, UpstreamSchemaCompleteReviewsAreNotPodRequests) {
  for (const auto& [file, version] :
       {std::pair{"admission.k8s.io.v1.AdmissionReview.json", ReviewVersion::V1},
        std::pair{"admission.k8s.io.v1beta1.AdmissionReview.json", ReviewVersion::V1beta1}}) {
    const std::string body = data_file(file);
    ReviewDocument doc;
    const ReviewRequest r = decode_review(body, doc);
    EXPECT_EQ(r.version, version) << file;
    EXPECT_EQ(r.uid, "uidValue");
    EXPECT_EQ(r.operation, "operationValue");
    EXPECT_EQ(r.namespace_, "namespaceValue");
    EXPECT_EQ(r.name, "nameValue");
    EXPECT_EQ(r.sub_resource, "subResourceValue");
    EXPECT_FALSE(r.targets_pod);  // kind {groupValue, versionValue, kindValue}
    EXPECT_TRUE(r.dry_run);
    ASSERT_NE(r.object, nullptr);
  }
}

TEST(ReviewDecode, PodTargetFromKindOrResource) {
  const auto targets = [](std::string_view extra) {
    const std::string body =
        std::string(R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",)") +
        R"("request":{"uid":"u","operation":"CREATE")" + std::string(extra) + "}}";
    ReviewDocument doc;
    return decode_review(body, doc).targets_pod;
  };
  EXPECT_TRUE(targets(""));
  EXPECT_TRUE(targets(R"(,"kind":{"group":"","version":"v1","kind":"Pod"})"));
  EXPECT_TRUE(targets(R"(,"kind":{"version":"v1","kind":"Pod"})"));
  EXPECT_FALSE(targets(R"(,"kind":{"group":"apps","version":"v1","kind":"Pod"})"));
  EXPECT_FALSE(targets(R"(,"kind":{"group":"","version":"v1","kind":"Node"})"));
  EXPECT_TRUE(targets(R"(,"resource":{"group":"","version":"v1","resource":"pods"})"));
  EXPECT_FALSE(targets(R"(,"resource":{"group":"apps","version":"v1","resource":"deployments"})"));
  // kind wins over resource
  EXPECT_FALSE(targets(R"(,"kind":{"group":"","version":"v1","kind":"Binding"},)"
                       R"("resource":{"group":"","version":"v1","resource":"pods"})"));
}

TEST(ReviewDecode, NullObjectIsAbsent) {
  ReviewDocument doc;
  const ReviewRequest r =
      decode_review(R"({"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview",)"
                    R"("request":{"uid":"u","operation":"DELETE","object":null,"dryRun":null}})",
                    doc);
  EXPECT_EQ(r.version, ReviewVersion::V1beta1);
  EXPECT_EQ(r.object, nullptr);
  EXPECT_FALSE(r.dry_run);
}

TEST(ReviewDecode, BodiesThatAreNotAReview) {
  expect_failure("", "request body is empty");
  expect_failure("{",
                 "request body is not valid JSON: Missing a name for object member. (at byte 1)");
  expect_failure("{} x",
                 "request body is not valid JSON: The document root must not be followed by other "
                 "values. (at byte 3)");
  expect_failure("\"\xff\"", "request body is not valid UTF-8 (at byte 1)");
  expect_failure("{\"a\":1} \xc3", "request body is not valid UTF-8 (at byte 8)");
  expect_failure(std::string(100, 'a') + "\xed\xa0\x80",
                 "request body is not valid UTF-8 (at byte 100)");
  expect_failure("[1]", "AdmissionReview must be a JSON object, got an array");
  expect_failure("null", "AdmissionReview must be a JSON object, got null");
  // Deep nesting is an ordinary error, not a stack overflow.
  expect_failure(std::string(200000, '['),
                 "request body is not valid JSON: Invalid value. (at byte 200000)");
}

TEST(ReviewDecode, EnvelopeErrorsKeepTheUidAndVersionTheyCouldRead) {
  expect_failure(R"({"kind":"AdmissionReview","request":{"uid":"u1"}})",
                 "apiVersion is missing; expected admission.k8s.io/v1 or v1beta1", "u1");
  expect_failure(R"({"apiVersion":"v1","kind":"AdmissionReview","request":{"uid":"u2"}})",
                 R"(apiVersion "v1" is not supported; expected admission.k8s.io/v1 or )"
                 "admission.k8s.io/v1beta1",
                 "u2");
  expect_failure(R"({"apiVersion":7,"kind":"AdmissionReview","request":{"uid":"u3"}})",
                 "apiVersion must be a string, got a number", "u3");
  expect_failure(R"({"apiVersion":"admission.k8s.io/v1beta1","kind":"Pod","request":{"uid":"u4"}})",
                 R"(kind "Pod" is not AdmissionReview)", "u4", ReviewVersion::V1beta1);
  expect_failure(R"({"apiVersion":"admission.k8s.io/v1","request":{"uid":"u5"}})",
                 "kind is missing; expected AdmissionReview", "u5");
  expect_failure(R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"})",
                 "request is missing");
  expect_failure(R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":[]})",
                 "request must be an object, got an array");
  expect_failure(R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{}})",
                 "request.uid is missing");
  expect_failure(
      R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":""}})",
      "request.uid is missing");
  expect_failure(
      R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":5}})",
      "request.uid must be a string, got a number");
  // A lone surrogate escape decodes to bytes that are not UTF-8: the uid
  // cannot be echoed, so it is not known either.
  expect_failure(R"({"apiVersion":"admission.k8s.io/v1","kind":"Pod","request":{"uid":"a\udc00"}})",
                 R"(kind "Pod" is not AdmissionReview)");
  expect_failure(
      R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"a\udc00"}})",
      "request.uid is not valid UTF-8");
}

TEST(ReviewDecode, RequestMemberTypeErrorsCarryTheUid) {
  const auto body = [](std::string_view members) {
    return std::string(R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",)") +
           R"("request":{"uid":"u",)" + std::string(members) + "}}";
  };
  expect_failure(body(R"("x":1)"), "request.operation is missing", "u");
  expect_failure(body(R"("operation":1)"), "request.operation must be a string, got a number", "u");
  expect_failure(body(R"("operation":"CREATE","namespace":[])"),
                 "request.namespace must be a string, got an array", "u");
  expect_failure(body(R"("operation":"CREATE","name":{})"),
                 "request.name must be a string, got an object", "u");
  expect_failure(body(R"("operation":"CREATE","subResource":true)"),
                 "request.subResource must be a string, got a boolean", "u");
  expect_failure(body(R"("operation":"CREATE","kind":"Pod")"),
                 "request.kind must be an object, got a string", "u");
  expect_failure(body(R"("operation":"CREATE","kind":{"kind":1})"),
                 "request.kind.kind must be a string, got a number", "u");
  expect_failure(body(R"("operation":"CREATE","resource":{"group":false})"),
                 "request.resource.group must be a string, got a boolean", "u");
  expect_failure(body(R"("operation":"CREATE","dryRun":"yes")"),
                 "request.dryRun must be a boolean, got a string", "u");
}

TEST(ReviewEncode, AllowedWithPatchIsByteForByteTheSeedsReply) {
  ReviewReply reply;
  reply.uid = "705ab4f5-6393-11e8-b7cc-42010a800002";
  reply.patch = R"([{"op":"replace","path":"/spec/schedulerName","value":"hami-scheduler"}])";
  EXPECT_EQ(encode_reply(reply), testing::trimmed(data_file("admission-response.json")));
}

TEST(ReviewEncode, AllowedWithoutPatchMatchesControllerRuntime) {
  ReviewReply reply;
  EXPECT_EQ(encode_reply(reply), testing::trimmed(data_file("http-allowed-response-v1.json")));
}

TEST(ReviewEncode, DeniedErroredAndV1beta1) {
  ReviewReply denied;
  denied.version = ReviewVersion::V1beta1;
  denied.uid = "u\"1";
  denied.allowed = false;
  denied.code = 403;
  denied.reason = "Forbidden";
  denied.message = "pod has node assigned";
  EXPECT_EQ(encode_reply(denied),
            R"({"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1beta1","response":)"
            R"({"uid":"u\"1","allowed":false,"status":{"metadata":{},)"
            R"("message":"pod has node assigned","reason":"Forbidden","code":403}}})");
  ReviewReply errored;
  errored.uid = "u";
  errored.allowed = false;
  errored.code = 400;
  errored.message = "request.object is missing";
  EXPECT_EQ(encode_reply(errored),
            R"({"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","response":)"
            R"({"uid":"u","allowed":false,"status":{"metadata":{},)"
            R"("message":"request.object is missing","code":400}}})");
  EXPECT_EQ(error_body("bad \"thing\""), R"({"error":"bad \"thing\""})");
}

}  // namespace
}  // namespace hami::admission
