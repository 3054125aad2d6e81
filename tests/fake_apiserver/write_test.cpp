// Writes: create, update, merge and JSON patches with resourceVersion
// preconditions, delete, pods/binding, events and leases.
#include <gtest/gtest.h>

#include "fake_apiserver.hpp"
#include "test_client.hpp"
#include "test_objects.hpp"

namespace hami::testing::test {
namespace {

constexpr const char* kPodPath = "/api/v1/namespaces/ml-team/pods/llm-serve-6f7d8c9b5-k2l3m";
constexpr const char* kPodUid = "c0ffee00-1234-4abc-8def-0123456789ab";

// The pod of the fixtures, with its uid.
std::string fixture_pod() {
  Json p = Json::parse(pod("ml-team", "llm-serve-6f7d8c9b5-k2l3m"));
  p["metadata"]["uid"] = kPodUid;
  return p.dump();
}

RequestOptions with_body(std::string body, std::string content_type) {
  RequestOptions o;
  o.body = std::move(body);
  o.content_type = std::move(content_type);
  return o;
}

Json stored(const FakeApiServer& server, const char* kind, const char* ns, const char* name) {
  auto text = server.object(kind, ns, name);
  return text ? Json::parse(*text) : Json();
}

TEST(FakeApiServerWrite, CreateFillsServerFieldsAndRefusesDuplicates) {
  FakeApiServer server;
  const Response created = call(server.url(), "POST", "/api/v1/namespaces/a/pods",
                                with_body(pod("a", "p1"), "application/json"));
  ASSERT_EQ(created.status, 201) << created.body;
  const Json obj = created.json();
  EXPECT_EQ(obj["metadata"]["resourceVersion"], std::to_string(server.revision()));
  EXPECT_EQ(obj["metadata"]["uid"].get<std::string>().size(), 36u);
  EXPECT_FALSE(obj["metadata"]["creationTimestamp"].get<std::string>().empty());

  const Response again = call(server.url(), "POST", "/api/v1/namespaces/a/pods",
                              with_body(pod("a", "p1"), "application/json"));
  EXPECT_EQ(again.status, 409);
  EXPECT_EQ(again.json()["reason"], "AlreadyExists");
  EXPECT_EQ(again.json()["message"], "pods \"p1\" already exists");

  const Response wrong_ns = call(server.url(), "POST", "/api/v1/namespaces/b/pods",
                                 with_body(pod("a", "p2"), "application/json"));
  EXPECT_EQ(wrong_ns.status, 400);
}

// An object without apiVersion, applied over a stored one: the server
// fills it in and keeps the metadata it was sent (adding the member once
// moved the metadata under the reference being written to).
TEST(FakeApiServerWrite, ApplyWithoutApiVersionFillsItIn) {
  FakeApiServer server;
  server.apply(pod("a", "p1"));
  Json again = Json::parse(pod("a", "p1"));
  again.erase("apiVersion");
  again["metadata"]["labels"] = {{"applied", "again"}};
  server.apply(again.dump());
  const Json got = stored(server, "Pod", "a", "p1");
  EXPECT_EQ(got["apiVersion"], "v1");
  EXPECT_EQ(got["kind"], "Pod");
  EXPECT_EQ(got["metadata"]["name"], "p1");
  EXPECT_EQ(got["metadata"]["labels"]["applied"], "again");
  EXPECT_FALSE(got["metadata"]["uid"].get<std::string>().empty());
}

TEST(FakeApiServerWrite, EventsCoreAndEventsV1WithGenerateName) {
  FakeApiServer server;
  const Response core =
      call(server.url(), "POST", "/api/v1/namespaces/ml-team/events",
           with_body(fixture("event-core-v1-create-body.json"), "application/json"));
  ASSERT_EQ(core.status, 201) << core.body;
  const Response v1 =
      call(server.url(), "POST", "/apis/events.k8s.io/v1/namespaces/ml-team/events",
           with_body(fixture("event-events-v1-create-body.json"), "application/json"));
  ASSERT_EQ(v1.status, 201) << v1.body;
  EXPECT_EQ(v1.json()["apiVersion"], "events.k8s.io/v1");

  Json generated = Json::parse(fixture("event-core-v1-create-body.json"));
  generated["metadata"].erase("name");
  generated["metadata"]["generateName"] = "llm-serve.";
  const Response gen = call(server.url(), "POST", "/api/v1/namespaces/ml-team/events",
                            with_body(generated.dump(), "application/json"));
  ASSERT_EQ(gen.status, 201) << gen.body;
  const std::string name = gen.json()["metadata"]["name"];
  EXPECT_EQ(name.size(), std::string("llm-serve.").size() + 5);
  EXPECT_EQ(name.rfind("llm-serve.", 0), 0u);

  const auto events = server.objects("Event");
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(Json::parse(events[0])["reason"], "BindingSucceed");
}

TEST(FakeApiServerWrite, MergePatchWithResourceVersionPrecondition) {
  FakeApiServer server;
  const std::string rv = server.apply(fixture_pod());
  Json patch = Json::parse(fixture("pod-merge-patch-annotations-with-rv.json"));
  patch["metadata"]["resourceVersion"] = rv;
  const Response ok = call(server.url(), "PATCH", kPodPath,
                           with_body(patch.dump(), "application/merge-patch+json"));
  ASSERT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(ok.json()["metadata"]["annotations"]["hami.io/bind-phase"], "success");
  EXPECT_EQ(ok.json()["metadata"]["resourceVersion"], std::to_string(server.revision()));
  EXPECT_NE(ok.json()["metadata"]["resourceVersion"], rv);

  // Same precondition again: the object has moved on.
  const Response stale = call(server.url(), "PATCH", kPodPath,
                              with_body(patch.dump(), "application/merge-patch+json"));
  EXPECT_EQ(stale.status, 409);
  EXPECT_EQ(stale.json(), Json::parse(fixture("status-409-conflict.json")));
}

TEST(FakeApiServerWrite, MergePatchNullDeletesAndNoOpWritesNothing) {
  FakeApiServer server;
  Json p = Json::parse(fixture_pod());
  p["metadata"]["annotations"] = {{"hami.io/obsolete-key", "x"}, {"keep", "y"}};
  server.apply(p.dump());
  const std::string patch = fixture("pod-merge-patch-annotations.json");
  const Response r =
      call(server.url(), "PATCH", kPodPath, with_body(patch, "application/merge-patch+json"));
  ASSERT_EQ(r.status, 200) << r.body;
  const Json annotations = r.json()["metadata"]["annotations"];
  EXPECT_FALSE(annotations.contains("hami.io/obsolete-key"));
  EXPECT_EQ(annotations["keep"], "y");
  EXPECT_EQ(annotations["hami.io/vgpu-node"], "gpu-node-a100-01");

  const uint64_t revision = server.revision();
  const Response again = call(server.url(), "PATCH", kPodPath,
                              with_body(patch, "application/strategic-merge-patch+json"));
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(server.revision(), revision);
}

TEST(FakeApiServerWrite, NodeHandshakePatchAndStalePutConflict) {
  FakeApiServer server;
  const std::string rv = server.apply(node("n1"));
  Json patch = Json::parse(fixture("node-merge-patch-handshake.json"));
  patch["metadata"]["resourceVersion"] = rv;
  const Response ok = call(server.url(), "PATCH", "/api/v1/nodes/n1",
                           with_body(patch.dump(), "application/merge-patch+json"));
  ASSERT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(stored(server, "Node", "", "n1")["metadata"]["annotations"]["hami.io/node-handshake"],
            "Requesting_2026-07-20 09:31:00");
  EXPECT_EQ(
      stored(server, "Node", "", "n1")["metadata"]["annotations"]["hami.io/node-nvidia-register"],
      "x");

  Json full = Json::parse(node("n1"));
  full["metadata"]["resourceVersion"] = rv;  // stale
  const Response put =
      call(server.url(), "PUT", "/api/v1/nodes/n1", with_body(full.dump(), "application/json"));
  EXPECT_EQ(put.status, 409);
  EXPECT_EQ(put.json()["message"],
            "Operation cannot be fulfilled on nodes \"n1\": the object has been modified; please "
            "apply your changes to the latest version and try again");
  full["metadata"]["resourceVersion"] = std::to_string(server.revision());
  const Response fresh =
      call(server.url(), "PUT", "/api/v1/nodes/n1", with_body(full.dump(), "application/json"));
  EXPECT_EQ(fresh.status, 200) << fresh.body;
  EXPECT_FALSE(fresh.json()["metadata"]["annotations"].contains("hami.io/node-handshake"));
}

TEST(FakeApiServerWrite, JsonPatchTestOperation) {
  FakeApiServer server;
  Json p = Json::parse(fixture_pod());
  p["metadata"]["annotations"] = Json::object();
  const std::string rv = server.apply(p.dump());
  Json patch = Json::parse(fixture("pod-json-patch-annotations-with-test.json"));
  patch[0]["value"] = rv;
  const Response ok =
      call(server.url(), "PATCH", kPodPath, with_body(patch.dump(), "application/json-patch+json"));
  ASSERT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(ok.json()["metadata"]["annotations"]["hami.io/bind-phase"], "success");

  const Response failed =
      call(server.url(), "PATCH", kPodPath, with_body(patch.dump(), "application/json-patch+json"));
  EXPECT_EQ(failed.status, 422);
  EXPECT_EQ(failed.body,
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
            R"("message":"the server rejected our request due to an error in our request",)"
            R"("reason":"Invalid","details":{},"code":422})");

  // A missing parent is an error too, and nothing is written.
  const uint64_t revision = server.revision();
  const Response missing =
      call(server.url(), "PATCH", kPodPath,
           with_body(R"([{"op":"add","path":"/metadata/labels2/x","value":"1"}])",
                     "application/json-patch+json"));
  EXPECT_EQ(missing.status, 422);
  EXPECT_EQ(server.revision(), revision);

  EXPECT_EQ(
      call(server.url(), "PATCH", kPodPath, with_body("{}", "application/apply-patch+yaml")).status,
      415);
  EXPECT_EQ(call(server.url(), "PATCH", "/api/v1/namespaces/ml-team/pods/nope",
                 with_body("{}", "application/merge-patch+json"))
                .status,
            404);
}

// A label value over 63 bytes is refused for the whole write, with the
// Status the real server (apimachinery v0.37) sends; create, update and
// patch alike, and nothing is stored.
TEST(FakeApiServerWrite, LabelValuesAndKeysAreValidated) {
  FakeApiServer server;
  server.apply(fixture_pod());
  const std::string long_value(70, 'n');
  const uint64_t revision = server.revision();
  const Response patched =
      call(server.url(), "PATCH", kPodPath,
           with_body(R"([{"op":"add","path":"/metadata/annotations","value":{"a":"1"}},)"
                     R"({"op":"add","path":"/metadata/labels/hami.io~1vgpu-node","value":")" +
                         long_value + R"("}])",
                     "application/json-patch+json"));
  EXPECT_EQ(patched.status, 422);
  EXPECT_EQ(patched.body,
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
            R"("message":"Pod \"llm-serve-6f7d8c9b5-k2l3m\" is invalid: metadata.labels: )"
            R"(Invalid value: \")" +
                long_value +
                R"(\": must be no more than 63 bytes","reason":"Invalid",)"
                R"("details":{"name":"llm-serve-6f7d8c9b5-k2l3m","kind":"Pod","causes":[)"
                R"({"reason":"FieldValueInvalid","message":"Invalid value: \")" +
                long_value +
                R"(\": must be no more than 63 bytes","field":"metadata.labels"}]},"code":422})");
  EXPECT_EQ(server.revision(), revision);
  EXPECT_FALSE(stored(server, "Pod", "ml-team", "llm-serve-6f7d8c9b5-k2l3m")["metadata"].contains(
      "annotations"));

  // 63 bytes pass; a character outside the label alphabet does not.
  const std::string longest(63, 'n');
  EXPECT_EQ(call(server.url(), "PATCH", kPodPath,
                 with_body(R"({"metadata":{"labels":{"k":")" + longest + R"("}}})",
                           "application/merge-patch+json"))
                .status,
            200);
  const Response bad_char =
      call(server.url(), "PATCH", kPodPath,
           with_body(R"({"metadata":{"labels":{"k":"a:b"}}})", "application/merge-patch+json"));
  EXPECT_EQ(bad_char.status, 422);
  EXPECT_EQ(bad_char.json()["message"],
            "Pod \"llm-serve-6f7d8c9b5-k2l3m\" is invalid: metadata.labels: Invalid value: "
            "\"a:b\": a valid label must be an empty string or consist of alphanumeric "
            "characters, '-', '_' or '.', and must start and end with an alphanumeric character "
            "(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
            "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");

  // Keys: the prefix a DNS subdomain, the name a qualified name.
  Json created = Json::parse(pod("ml-team", "p2"));
  created["metadata"]["labels"] = {{"Bad_Prefix/x", "1"}};
  const Response bad_key = call(server.url(), "POST", "/api/v1/namespaces/ml-team/pods",
                                with_body(created.dump(), "application/json"));
  EXPECT_EQ(bad_key.status, 422);
  EXPECT_EQ(bad_key.json()["message"],
            "Pod \"p2\" is invalid: metadata.labels: Invalid value: \"Bad_Prefix/x\": prefix "
            "part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
            "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
            "'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
  EXPECT_FALSE(server.object("Pod", "ml-team", "p2").has_value());
  // Two errors: the aggregate in brackets, one cause each.
  Json two = Json::parse(fixture_pod());
  two["metadata"]["labels"] = {{"a", std::string(64, 'v')}, {"b", "-"}};
  const Response both =
      call(server.url(), "PUT", kPodPath, with_body(two.dump(), "application/json"));
  EXPECT_EQ(both.status, 422);
  const std::string message = both.json()["message"];
  EXPECT_EQ(message.rfind("Pod \"llm-serve-6f7d8c9b5-k2l3m\" is invalid: [metadata.labels: ", 0),
            0u)
      << message;
  EXPECT_EQ(both.json()["details"]["causes"].size(), 2u);
}

TEST(FakeApiServerWrite, BindingSucceedsOnceWithAnnotations) {
  FakeApiServer server;
  server.apply(fixture_pod());
  const std::string path = std::string(kPodPath) + "/binding";
  const Response ok = call(server.url(), "POST", path,
                           with_body(fixture("binding-post-body.json"), "application/json"));
  EXPECT_EQ(ok.status, 201);
  EXPECT_EQ(ok.json(), Json::parse(fixture("binding-post-response-201.json")));
  const Json p = stored(server, "Pod", "ml-team", "llm-serve-6f7d8c9b5-k2l3m");
  EXPECT_EQ(p["spec"]["nodeName"], "gpu-node-a100-01");
  EXPECT_EQ(p["metadata"]["annotations"]["hami.io/bind-time"], "1784540000");
  ASSERT_EQ(p["status"]["conditions"].size(), 1u);
  EXPECT_EQ(p["status"]["conditions"][0]["type"], "PodScheduled");
  EXPECT_EQ(p["status"]["conditions"][0]["status"], "True");

  const Response again = call(server.url(), "POST", path,
                              with_body(fixture("binding-post-body.json"), "application/json"));
  EXPECT_EQ(again.status, 409);
  EXPECT_EQ(again.json(), Json::parse(fixture("status-409-binding-already-assigned.json")));
}

TEST(FakeApiServerWrite, BindingPreconditionsAndErrors) {
  FakeApiServer server;
  server.apply(fixture_pod());
  const std::string path = std::string(kPodPath) + "/binding";
  Json body = Json::parse(fixture("binding-post-body.json"));

  Json other_uid = body;
  other_uid["metadata"]["uid"] = "11111111-2222-4333-8444-555555555555";
  const Response uid =
      call(server.url(), "POST", path, with_body(other_uid.dump(), "application/json"));
  EXPECT_EQ(uid.status, 409);
  EXPECT_EQ(uid.json()["reason"], "Conflict");
  EXPECT_NE(uid.json()["message"].get<std::string>().find(
                "Precondition failed: UID in precondition: 11111111-2222-4333-8444-555555555555, "
                "UID in object meta: c0ffee00-1234-4abc-8def-0123456789ab"),
            std::string::npos);

  Json other_name = body;
  other_name["metadata"]["name"] = "someone-else";
  EXPECT_EQ(
      call(server.url(), "POST", path, with_body(other_name.dump(), "application/json")).status,
      400);
  Json no_target = body;
  no_target["target"].erase("name");
  EXPECT_EQ(
      call(server.url(), "POST", path, with_body(no_target.dump(), "application/json")).status,
      422);
  Json missing_pod = body;
  missing_pod["metadata"]["name"] = "nope";
  const Response missing =
      call(server.url(), "POST", "/api/v1/namespaces/ml-team/pods/nope/binding",
           with_body(missing_pod.dump(), "application/json"));
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.json()["message"], "pods \"nope\" not found");
  // None of it bound the pod.
  EXPECT_FALSE(
      stored(server, "Pod", "ml-team", "llm-serve-6f7d8c9b5-k2l3m")["spec"].contains("nodeName"));
  // The legacy collection binds too.
  EXPECT_EQ(call(server.url(), "POST", "/api/v1/namespaces/ml-team/bindings",
                 with_body(body.dump(), "application/json"))
                .status,
            201);
}

TEST(FakeApiServerWrite, DeleteWithPreconditions) {
  FakeApiServer server;
  server.apply(fixture_pod());
  const Response wrong = call(server.url(), "DELETE", kPodPath,
                              with_body(R"({"preconditions":{"uid":"x"}})", "application/json"));
  EXPECT_EQ(wrong.status, 409);
  const Response ok = call(server.url(), "DELETE", kPodPath);
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.json()["metadata"]["resourceVersion"], std::to_string(server.revision()));
  EXPECT_EQ(call(server.url(), "GET", kPodPath).status, 404);
  EXPECT_EQ(call(server.url(), "DELETE", kPodPath).status, 404);

  server.apply(node("n1"));
  const Response node_gone = call(server.url(), "DELETE", "/api/v1/nodes/n1");
  EXPECT_EQ(node_gone.status, 200);
  EXPECT_EQ(node_gone.json()["status"], "Success");
}

TEST(FakeApiServerWrite, LeaseCreateRenewAndLostRace) {
  FakeApiServer server;
  const std::string base = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";
  const Response created = call(server.url(), "POST", base,
                                with_body(fixture("lease-create-body.json"), "application/json"));
  ASSERT_EQ(created.status, 201) << created.body;
  Json lease = created.json();
  EXPECT_EQ(lease["apiVersion"], "coordination.k8s.io/v1");
  const Response dup = call(server.url(), "POST", base,
                            with_body(fixture("lease-create-body.json"), "application/json"));
  EXPECT_EQ(dup.status, 409);
  EXPECT_EQ(dup.json()["message"],
            "leases.coordination.k8s.io \"gpu-scheduler-extender\" already exists");

  lease["spec"]["renewTime"] = "2026-07-20T09:30:02.000000Z";
  const Response renewed = call(server.url(), "PUT", base + "/gpu-scheduler-extender",
                                with_body(lease.dump(), "application/json"));
  ASSERT_EQ(renewed.status, 200) << renewed.body;
  const Response lost = call(server.url(), "PUT", base + "/gpu-scheduler-extender",
                             with_body(lease.dump(), "application/json"));
  EXPECT_EQ(lost.status, 409);
  EXPECT_EQ(lost.json()["details"],
            Json::parse(R"({"name":"gpu-scheduler-extender","group":"coordination.k8s.io",)"
                        R"("kind":"leases"})"));
}

}  // namespace
}  // namespace hami::testing::test
