// Injected faults, authentication, recording and TLS.
#include <Poco/Exception.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "fake_apiserver.hpp"
#include "test_client.hpp"
#include "test_objects.hpp"

namespace hami::testing::test {
namespace {

using namespace std::chrono_literals;

TEST(FakeApiServerFault, TooManyRequestsWithRetryAfterForTheNextMatchingRequests) {
  FakeApiServer server;
  server.apply(pod("a", "p1"));
  server.fail_next("GET", "/api/v1/pods", 429, 2, 3);
  // Other methods and paths are not affected.
  EXPECT_EQ(call(server.url(), "GET", "/api/v1/nodes").status, 200);
  EXPECT_EQ(call(server.url(), "POST", "/api/v1/namespaces/a/pods",
                 RequestOptions{pod("a", "p2"), "application/json", "", ""})
                .status,
            201);
  for (int i = 0; i < 2; ++i) {
    const Response r = call(server.url(), "GET", "/api/v1/pods");
    EXPECT_EQ(r.status, 429);
    EXPECT_EQ(r.headers.at("Retry-After"), "3");
    Json expected = Json::parse(fixture("status-429-too-many-requests.json"));
    expected["details"]["retryAfterSeconds"] = 3;
    EXPECT_EQ(r.json(), expected);
  }
  EXPECT_EQ(call(server.url(), "GET", "/api/v1/pods").status, 200);
}

// An injected 403 reads as RBAC's refusal of an anonymous client.
TEST(FakeApiServerFault, ForbiddenNamesTheVerbAndResource) {
  FakeApiServer server;
  server.apply(pod("a", "p1"));
  server.fail_next("POST", "/api/v1/namespaces/a/pods/p1/binding", 403);
  const Response r = call(server.url(), "POST", "/api/v1/namespaces/a/pods/p1/binding",
                          RequestOptions{R"({"metadata":{"name":"p1"},"target":{"name":"n"}})",
                                         "application/json", "", ""});
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.body,
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
            R"("message":"pods \"p1\" is forbidden: User \"system:anonymous\" cannot create )"
            R"(resource \"pods/binding\" in API group \"\" in the namespace \"a\"",)"
            R"("reason":"Forbidden","details":{"name":"p1","kind":"pods"},"code":403})");
  server.fail_next("GET", "/api/v1/nodes", 403);
  EXPECT_EQ(call(server.url(), "GET", "/api/v1/nodes").json()["message"],
            "nodes is forbidden: User \"system:anonymous\" cannot list resource \"nodes\" in "
            "API group \"\" at the cluster scope");
}

TEST(FakeApiServerFault, ServerErrorsAndWatchRefusals) {
  FakeApiServer server;
  server.fail_next("", "/api/v1/nodes", 500);
  const Response r = call(server.url(), "GET", "/api/v1/nodes/n1");
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.json()["reason"], "InternalError");
  EXPECT_EQ(r.headers.count("Retry-After"), 0u);

  server.fail_next("GET", "/api/v1/pods", 410);
  WatchReader refused(server.url(), "/api/v1/pods?watch=1&resourceVersion=1");
  EXPECT_EQ(refused.status(), 410);
  EXPECT_EQ(Json::parse(refused.body())["reason"], "Expired");

  server.fail_next("PATCH", "/api/v1/nodes/n1", 409);
  server.apply(node("n1"));
  const Response conflict = call(server.url(), "PATCH", "/api/v1/nodes/n1",
                                 RequestOptions{R"({"metadata":{"labels":{"a":"b"}}})",
                                                "application/merge-patch+json", "", ""});
  EXPECT_EQ(conflict.status, 409);
  EXPECT_EQ(conflict.json()["message"],
            "Operation cannot be fulfilled on nodes \"n1\": the object has been modified; please "
            "apply your changes to the latest version and try again");
  server.fail_next("", "/", 503, 1, 1);
  const Response unavailable = call(server.url(), "GET", "/api/v1/nodes");
  EXPECT_EQ(unavailable.status, 503);
  EXPECT_EQ(unavailable.headers.at("Retry-After"), "1");
  EXPECT_EQ(unavailable.json()["reason"], "ServiceUnavailable");
}

TEST(FakeApiServerFault, AFaultAfterApplyingStoresTheWriteAndAnswersTheError) {
  FakeApiServer server;
  server.apply(node("n1"));
  server.fail_next_after_applying("PATCH", "/api/v1/nodes/", 500);
  const RequestOptions patch{R"({"metadata":{"labels":{"a":"b"}}})", "application/merge-patch+json",
                             "", ""};
  const Response failed = call(server.url(), "PATCH", "/api/v1/nodes/n1", patch);
  EXPECT_EQ(failed.status, 500);
  EXPECT_EQ(failed.json()["reason"], "InternalError");
  const Response stored = call(server.url(), "GET", "/api/v1/nodes/n1");
  EXPECT_EQ(stored.json()["metadata"]["labels"]["a"], "b");
  // One request only: the next write is answered as usual.
  const Response next = call(server.url(), "PATCH", "/api/v1/nodes/n1", patch);
  EXPECT_EQ(next.status, 200);
}

TEST(FakeApiServerFault, BearerTokenAndRotation) {
  FakeApiServerOptions options;
  options.token = "first";
  FakeApiServer server(options);
  const Response anonymous = call(server.url(), "GET", "/api/v1/nodes");
  EXPECT_EQ(anonymous.status, 401);
  EXPECT_EQ(anonymous.body,
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
            R"("message":"Unauthorized","reason":"Unauthorized","code":401})");
  RequestOptions first;
  first.token = "first";
  EXPECT_EQ(call(server.url(), "GET", "/api/v1/nodes", first).status, 200);

  server.set_token("second");
  EXPECT_EQ(call(server.url(), "GET", "/api/v1/nodes", first).status, 401);
  RequestOptions second;
  second.token = "second";
  EXPECT_EQ(call(server.url(), "GET", "/api/v1/nodes", second).status, 200);
  WatchReader unauthorized_watch(server.url(), "/api/v1/pods?watch=1", first);
  EXPECT_EQ(unauthorized_watch.status(), 401);

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 5u);
  EXPECT_EQ(requests[0].authorization, "");
  EXPECT_EQ(requests[0].status, 401);
  EXPECT_EQ(requests[1].authorization, "Bearer first");
  EXPECT_EQ(requests[1].status, 200);
  EXPECT_EQ(requests[3].authorization, "Bearer second");
  EXPECT_TRUE(requests[4].watch);
}

TEST(FakeApiServerFault, RequestsAreRecorded) {
  FakeApiServer server;
  server.apply(node("n1"));
  call(server.url(), "PATCH", "/api/v1/nodes/n1",
       RequestOptions{R"({"metadata":{"labels":{"a":"b"}}})",
                      "application/merge-patch+json; charset=utf-8", "", ""});
  WatchReader watch(server.url(), "/api/v1/nodes?watch=1&fieldSelector=metadata.name%3Dn1");
  ASSERT_TRUE(server.wait_open_watches(1, 5s));
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].method, "PATCH");
  EXPECT_EQ(requests[0].path, "/api/v1/nodes/n1");
  EXPECT_EQ(requests[0].query, "");
  EXPECT_EQ(requests[0].content_type, "application/merge-patch+json; charset=utf-8");
  EXPECT_EQ(requests[0].body, R"({"metadata":{"labels":{"a":"b"}}})");
  EXPECT_EQ(requests[0].status, 200);
  EXPECT_FALSE(requests[0].watch);
  EXPECT_EQ(requests[1].method, "GET");
  EXPECT_EQ(requests[1].query, "watch=1&fieldSelector=metadata.name%3Dn1");
  EXPECT_EQ(requests[1].status, 200);
  EXPECT_TRUE(requests[1].watch);
  server.clear_requests();
  EXPECT_TRUE(server.requests().empty());
}

TEST(FakeApiServerFault, LatencyDelaysReplies) {
  FakeApiServer server;
  server.set_latency(300ms);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(call(server.url(), "GET", "/api/v1/nodes").status, 200);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 300ms);
  server.set_latency(0ms);
}

TEST(FakeApiServerFault, RefusingClosesConnectionsUntilLifted) {
  FakeApiServer server;
  server.set_refusing(true);
  EXPECT_THROW(call(server.url(), "GET", "/api/v1/nodes"), Poco::Exception);
  server.set_refusing(false);
  EXPECT_EQ(call(server.url(), "GET", "/api/v1/nodes").status, 200);
}

TEST(FakeApiServerTls, ServesHttpsWithTheCertificateOfCaPem) {
  FakeApiServerOptions tls_options;
  tls_options.tls = true;
  tls_options.token = "t";
  FakeApiServer server(tls_options);
  EXPECT_EQ(server.url(), "https://127.0.0.1:" + std::to_string(server.port()));
  const std::string ca = server.ca_pem();
  ASSERT_EQ(ca.rfind("-----BEGIN CERTIFICATE-----", 0), 0u);
  server.apply(node("n1"));
  RequestOptions options;
  options.ca_pem = ca;
  options.token = "t";
  const Response r = call(server.url(), "GET", "/api/v1/nodes/n1", options);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.json()["metadata"]["name"], "n1");

  WatchReader watch(server.url(), "/api/v1/nodes?watch=1", options);
  ASSERT_EQ(watch.status(), 200);
  auto added = watch.next();
  ASSERT_TRUE(added);
  EXPECT_EQ((*added)["type"], "ADDED");
  // An idle TLS watch stays open past the server's idle checks and
  // follows.
  ASSERT_TRUE(server.wait_open_watches(1, 5s));
  std::this_thread::sleep_for(350ms);
  EXPECT_EQ(server.open_watches(), 1u);
  const std::string rv = server.apply(node("n2"));
  auto followed = watch.next();
  ASSERT_TRUE(followed);
  EXPECT_EQ((*followed)["object"]["metadata"]["resourceVersion"], rv);
  server.drop_watches();
  EXPECT_FALSE(watch.next());
  EXPECT_EQ(watch.end(), WatchReader::End::broken);

  // Without the CA the client refuses the server.
  RequestOptions untrusted;
  untrusted.token = "t";
  EXPECT_THROW(call(server.url(), "GET", "/api/v1/nodes/n1", untrusted), Poco::Exception);
  EXPECT_TRUE(FakeApiServer().ca_pem().empty());
}

}  // namespace
}  // namespace hami::testing::test
