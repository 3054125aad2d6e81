// List and get: revisions, items, pagination snapshots, selectors.
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/StreamCopier.h>
#include <gtest/gtest.h>

#include "fake_apiserver.hpp"
#include "test_client.hpp"
#include "test_objects.hpp"

namespace hami::testing::test {
namespace {

std::vector<std::string> names(const Json& list) {
  std::vector<std::string> out;
  for (const Json& item : list["items"]) {
    out.push_back(item["metadata"]["namespace"].get<std::string>() + "/" +
                  item["metadata"]["name"].get<std::string>());
  }
  return out;
}

TEST(FakeApiServerList, ListCarriesStoreRevisionAndItemsWithoutKind) {
  FakeApiServer server;
  server.apply(pod("b", "p1"));
  server.apply(pod("a", "p2"));
  const std::string rv = server.apply(pod("a", "p1"));
  server.apply(node("n1"));  // another kind still moves the revision
  const Response r = call(server.url(), "GET", "/api/v1/pods");
  ASSERT_EQ(r.status, 200) << r.body;
  const Json list = r.json();
  EXPECT_EQ(list["kind"], "PodList");
  EXPECT_EQ(list["apiVersion"], "v1");
  EXPECT_EQ(list["metadata"]["resourceVersion"], std::to_string(server.revision()));
  EXPECT_FALSE(list["metadata"].contains("continue"));
  EXPECT_EQ(names(list), (std::vector<std::string>{"a/p1", "a/p2", "b/p1"}));
  EXPECT_FALSE(list["items"][0].contains("kind"));
  EXPECT_FALSE(list["items"][0].contains("apiVersion"));
  EXPECT_EQ(list["items"][0]["metadata"]["resourceVersion"], rv);
  EXPECT_FALSE(list["items"][0]["metadata"]["uid"].get<std::string>().empty());
  EXPECT_EQ(r.headers.at("Content-Type"), "application/json");
}

TEST(FakeApiServerList, NamespacedListGetAndNotFound) {
  FakeApiServer server;
  server.apply(pod("a", "p1"));
  server.apply(pod("b", "p2"));
  const Response list = call(server.url(), "GET", "/api/v1/namespaces/b/pods");
  ASSERT_EQ(list.status, 200);
  EXPECT_EQ(names(list.json()), (std::vector<std::string>{"b/p2"}));

  const Response one = call(server.url(), "GET", "/api/v1/namespaces/a/pods/p1");
  ASSERT_EQ(one.status, 200);
  EXPECT_EQ(one.json()["kind"], "Pod");
  EXPECT_EQ(one.json()["apiVersion"], "v1");
  EXPECT_EQ(one.json()["metadata"]["name"], "p1");

  const Response missing = call(server.url(), "GET", "/api/v1/namespaces/a/pods/nope");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body, R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
                          R"("message":"pods \"nope\" not found","reason":"NotFound",)"
                          R"("details":{"name":"nope","kind":"pods"},"code":404})");

  const Response unknown = call(server.url(), "GET", "/api/v1/widgets");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(unknown.json()["message"], "the server could not find the requested resource");
}

TEST(FakeApiServerList, ClusterScopedNodesAndLeases) {
  FakeApiServer server;
  server.apply(node("n2"));
  server.apply(node("n1"));
  const Response list = call(server.url(), "GET", "/api/v1/nodes");
  ASSERT_EQ(list.status, 200);
  const Json l = list.json();
  EXPECT_EQ(l["kind"], "NodeList");
  ASSERT_EQ(l["items"].size(), 2u);
  EXPECT_EQ(l["items"][0]["metadata"]["name"], "n1");
  EXPECT_FALSE(l["items"][0]["metadata"].contains("namespace"));
  EXPECT_EQ(call(server.url(), "GET", "/api/v1/nodes/n2").status, 200);

  server.apply(fixture("lease-create-body.json"));
  const Response lease = call(server.url(), "GET",
                              "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/"
                              "gpu-scheduler-extender");
  ASSERT_EQ(lease.status, 200);
  EXPECT_EQ(lease.json()["spec"]["leaseDurationSeconds"], 15);
  const Response missing =
      call(server.url(), "GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/x");
  EXPECT_EQ(missing.json()["message"], "leases.coordination.k8s.io \"x\" not found");
  EXPECT_EQ(missing.json()["details"]["group"], "coordination.k8s.io");
}

TEST(FakeApiServerList, PagesComeFromOneSnapshot) {
  FakeApiServer server;
  for (const char* name : {"p1", "p2", "p3", "p4", "p5"}) {
    server.apply(pod("ns", name));
  }
  const Response first = call(server.url(), "GET", "/api/v1/pods?limit=2");
  ASSERT_EQ(first.status, 200);
  const Json page1 = first.json();
  EXPECT_EQ(names(page1), (std::vector<std::string>{"ns/p1", "ns/p2"}));
  EXPECT_EQ(page1["metadata"]["remainingItemCount"], 3);
  const std::string rv = page1["metadata"]["resourceVersion"];
  const std::string token = page1["metadata"]["continue"];
  ASSERT_FALSE(token.empty());

  // Writes between pages are not seen by the continuation.
  const std::string p3_before =
      Json::parse(*server.object("Pod", "ns", "p3"))["metadata"]["resourceVersion"];
  server.apply(pod("ns", "p3", "node-x"));
  server.apply(pod("ns", "p2a"));
  ASSERT_TRUE(server.remove("Pod", "ns", "p4"));

  const Json page2 = call(server.url(), "GET", "/api/v1/pods?limit=2&continue=" + token).json();
  EXPECT_EQ(names(page2), (std::vector<std::string>{"ns/p3", "ns/p4"}));
  EXPECT_EQ(page2["metadata"]["resourceVersion"], rv);
  EXPECT_EQ(page2["items"][0]["metadata"]["resourceVersion"], p3_before);
  EXPECT_FALSE(page2["items"][0]["spec"].contains("nodeName"));
  const Json page3 =
      call(server.url(), "GET",
           "/api/v1/pods?limit=2&continue=" + page2["metadata"]["continue"].get<std::string>())
          .json();
  EXPECT_EQ(names(page3), (std::vector<std::string>{"ns/p5"}));
  EXPECT_FALSE(page3["metadata"].contains("continue"));

  // A fresh list sees the writes.
  EXPECT_EQ(names(call(server.url(), "GET", "/api/v1/pods").json()),
            (std::vector<std::string>{"ns/p1", "ns/p2", "ns/p2a", "ns/p3", "ns/p5"}));
}

TEST(FakeApiServerList, ContinueAfterCompactIsExpired) {
  FakeApiServer server;
  for (const char* name : {"p1", "p2", "p3"}) {
    server.apply(pod("ns", name));
  }
  const Json page1 = call(server.url(), "GET", "/api/v1/pods?limit=1").json();
  server.apply(pod("ns", "p4"));
  server.compact();
  const Response r =
      call(server.url(), "GET",
           "/api/v1/pods?limit=1&continue=" + page1["metadata"]["continue"].get<std::string>());
  EXPECT_EQ(r.status, 410);
  EXPECT_EQ(r.json(), Json::parse(fixture("status-410-expired.json")));

  const Response garbage = call(server.url(), "GET", "/api/v1/pods?limit=1&continue=%21%21");
  EXPECT_EQ(garbage.status, 400);
}

// etcd keeps the revision it compacted at: a list read at exactly that
// revision can still be continued.
TEST(FakeApiServerList, ContinueAtTheCompactedRevisionStillWorks) {
  FakeApiServer server;
  for (const char* name : {"p1", "p2"}) {
    server.apply(pod("ns", name));
  }
  const Json page1 = call(server.url(), "GET", "/api/v1/pods?limit=1").json();
  server.compact();
  const Response r =
      call(server.url(), "GET",
           "/api/v1/pods?limit=1&continue=" + page1["metadata"]["continue"].get<std::string>());
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(names(r.json()), (std::vector<std::string>{"ns/p2"}));
}

TEST(FakeApiServerList, FieldSelectors) {
  FakeApiServer server;
  server.apply(pod("a", "on-n1", "n1"));
  server.apply(pod("a", "on-n2", "n2"));
  server.apply(pod("b", "pending"));
  auto list = [&](const std::string& query) {
    const Response r = call(server.url(), "GET", "/api/v1/pods?" + query);
    EXPECT_EQ(r.status, 200) << query << ": " << r.body;
    return names(r.json());
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(list("fieldSelector=spec.nodeName%3Dn1"), V{"a/on-n1"});
  EXPECT_EQ(list("fieldSelector=spec.nodeName%3D%3Dn2"), V{"a/on-n2"});
  EXPECT_EQ(list("fieldSelector=spec.nodeName%3D"), V{"b/pending"});
  EXPECT_EQ(list("fieldSelector=spec.nodeName!%3Dn1"), (V{"a/on-n2", "b/pending"}));
  EXPECT_EQ(list("fieldSelector=metadata.namespace%3Da,spec.nodeName!%3Dn1"), V{"a/on-n2"});
  EXPECT_EQ(list("fieldSelector=metadata.name%3Dpending"), V{"b/pending"});

  const Response bad = call(server.url(), "GET", "/api/v1/pods?fieldSelector=spec.foo%3Dx");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.json()["message"], "field label not supported: spec.foo");
  EXPECT_EQ(call(server.url(), "GET", "/api/v1/nodes?fieldSelector=spec.nodeName%3Dx").status, 400);
  server.apply(node("n1"));
  const Response schedulable =
      call(server.url(), "GET", "/api/v1/nodes?fieldSelector=spec.unschedulable%3Dfalse");
  ASSERT_EQ(schedulable.status, 200);
  EXPECT_EQ(schedulable.json()["items"].size(), 1u);
  EXPECT_EQ(call(server.url(), "GET", "/api/v1/nodes?fieldSelector=spec.unschedulable%3Dtrue")
                .json()["items"]
                .size(),
            0u);
  EXPECT_EQ(
      call(server.url(), "GET", "/api/v1/events?fieldSelector=involvedObject.name%3Dp1").status,
      200);
}

TEST(FakeApiServerList, LabelSelectors) {
  FakeApiServer server;
  server.apply(pod("a", "w1", "", "web"));
  server.apply(pod("a", "d1", "", "db"));
  auto list = [&](const std::string& query) {
    return names(call(server.url(), "GET", "/api/v1/pods?" + query).json());
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(list("labelSelector=app%3Ddb"), V{"a/d1"});
  EXPECT_EQ(list("labelSelector=app!%3Ddb"), V{"a/w1"});
  EXPECT_EQ(list("labelSelector=app"), (V{"a/d1", "a/w1"}));
  EXPECT_EQ(list("labelSelector=!app"), V{});
  EXPECT_EQ(list("labelSelector=tier%3Dx"), V{});
  // With a selector the remaining count is not known, as on the real server.
  const Json page = call(server.url(), "GET", "/api/v1/pods?limit=1&labelSelector=app").json();
  EXPECT_TRUE(page["metadata"].contains("continue"));
  EXPECT_FALSE(page["metadata"].contains("remainingItemCount"));
}

TEST(FakeApiServerList, KeepAliveServesSeveralRequestsOnOneConnection) {
  FakeApiServer server;
  server.apply(node("n1"));
  Poco::Net::HTTPClientSession session("127.0.0.1", server.port());
  session.setKeepAlive(true);
  for (int i = 0; i < 3; ++i) {
    Poco::Net::HTTPRequest request("GET", "/api/v1/nodes/n1", Poco::Net::HTTPMessage::HTTP_1_1);
    session.sendRequest(request);
    Poco::Net::HTTPResponse response;
    std::string body;
    Poco::StreamCopier::copyToString(session.receiveResponse(response), body);
    EXPECT_EQ(response.getStatus(), 200);
    EXPECT_TRUE(response.getKeepAlive());
    EXPECT_EQ(Json::parse(body)["metadata"]["name"], "n1");
  }
  EXPECT_EQ(server.requests().size(), 3u);
}

// The list resourceVersion parameter as the real server reads it: 0 is
// any version (the watch cache answers whole, limit ignored), a revision
// with limit is an exact read of etcd, without limit "not older than".
TEST(FakeApiServerList, ResourceVersionOfAList) {
  FakeApiServer server;
  for (const char* name : {"p1", "p2", "p3"}) {
    server.apply(pod("ns", name));
  }
  const std::string at_p3 = std::to_string(server.revision());
  const Json cached = call(server.url(), "GET", "/api/v1/pods?limit=2&resourceVersion=0").json();
  EXPECT_EQ(names(cached), (std::vector<std::string>{"ns/p1", "ns/p2", "ns/p3"}));
  EXPECT_FALSE(cached["metadata"].contains("continue"));
  EXPECT_EQ(cached["metadata"]["resourceVersion"], at_p3);

  ASSERT_TRUE(server.remove("Pod", "ns", "p1"));
  const Json exact =
      call(server.url(), "GET", "/api/v1/pods?limit=5&resourceVersion=" + at_p3).json();
  EXPECT_EQ(names(exact), (std::vector<std::string>{"ns/p1", "ns/p2", "ns/p3"}));
  EXPECT_EQ(exact["metadata"]["resourceVersion"], at_p3);
  const Json not_older = call(server.url(), "GET", "/api/v1/pods?resourceVersion=" + at_p3).json();
  EXPECT_EQ(names(not_older), (std::vector<std::string>{"ns/p2", "ns/p3"}));
  EXPECT_EQ(not_older["metadata"]["resourceVersion"], std::to_string(server.revision()));

  server.compact();
  const Response gone = call(server.url(), "GET", "/api/v1/pods?limit=5&resourceVersion=" + at_p3);
  EXPECT_EQ(gone.status, 410);
  EXPECT_EQ(gone.json()["message"], "The resourceVersion for the provided list is too old.");
  const std::string ahead = std::to_string(server.revision() + 5);
  const Response later = call(server.url(), "GET", "/api/v1/pods?resourceVersion=" + ahead);
  EXPECT_EQ(later.status, 504);
  EXPECT_EQ(later.json()["details"]["causes"][0]["reason"], "ResourceVersionTooLarge");
  const Response both =
      call(server.url(), "GET", "/api/v1/pods?limit=1&continue=x&resourceVersion=" + at_p3);
  EXPECT_EQ(both.status, 400);
}

// Without watch cache, a resourceVersion=0 list is paged like any other.
TEST(FakeApiServerList, ResourceVersionZeroIsPagedWithoutWatchCache) {
  FakeApiServerOptions options;
  options.watch_cache = false;
  FakeApiServer server(options);
  for (const char* name : {"p1", "p2", "p3"}) {
    server.apply(pod("ns", name));
  }
  const Json page = call(server.url(), "GET", "/api/v1/pods?limit=2&resourceVersion=0").json();
  EXPECT_EQ(names(page), (std::vector<std::string>{"ns/p1", "ns/p2"}));
  EXPECT_TRUE(page["metadata"].contains("continue"));
}

}  // namespace
}  // namespace hami::testing::test
