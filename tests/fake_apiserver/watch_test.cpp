// Watch streams: synthetic ADDED, replay from a resourceVersion, follow,
// bookmarks, initial-events end, 410 after compaction, selectors, and the
// ways a stream ends.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "fake_apiserver.hpp"
#include "test_client.hpp"
#include "test_objects.hpp"

namespace hami::testing::test {
namespace {

using namespace std::chrono_literals;

std::string rv_of(const Json& event) {
  return event["object"]["metadata"]["resourceVersion"];
}

TEST(FakeApiServerWatch, WithoutResourceVersionSendsAddedThenFollows) {
  FakeApiServer server;
  server.apply(pod("a", "p1"));
  server.apply(pod("a", "p2"));
  WatchReader watch(server.url(), "/api/v1/pods?watch=1&timeoutSeconds=30");
  ASSERT_EQ(watch.status(), 200);
  EXPECT_TRUE(watch.chunked());
  EXPECT_EQ(watch.headers().at("Content-Type"), "application/json");
  auto e1 = watch.next();
  auto e2 = watch.next();
  ASSERT_TRUE(e1 && e2);
  EXPECT_EQ((*e1)["type"], "ADDED");
  EXPECT_EQ((*e1)["object"]["kind"], "Pod");
  EXPECT_EQ((*e1)["object"]["metadata"]["name"], "p1");
  EXPECT_EQ((*e2)["object"]["metadata"]["name"], "p2");
  ASSERT_TRUE(server.wait_open_watches(1, 5s));

  const std::string rv = server.apply(pod("a", "p1", "n1"));
  auto modified = watch.next();
  ASSERT_TRUE(modified);
  EXPECT_EQ((*modified)["type"], "MODIFIED");
  EXPECT_EQ(rv_of(*modified), rv);
  EXPECT_EQ((*modified)["object"]["spec"]["nodeName"], "n1");

  server.apply(node("n1"));  // another kind: not on this stream
  ASSERT_TRUE(server.remove("Pod", "a", "p2"));
  auto deleted = watch.next();
  ASSERT_TRUE(deleted);
  EXPECT_EQ((*deleted)["type"], "DELETED");
  EXPECT_EQ((*deleted)["object"]["metadata"]["name"], "p2");
  EXPECT_EQ(rv_of(*deleted), std::to_string(server.revision()));
}

TEST(FakeApiServerWatch, FromResourceVersionReplaysStrictlyAfterIt) {
  FakeApiServer server;
  const std::string rv1 = server.apply(pod("a", "p1"));
  const std::string rv2 = server.apply(pod("a", "p1", "n1"));
  server.apply(node("n1"));
  const std::string rv3 = server.apply(pod("a", "p2"));
  WatchReader watch(server.url(), "/api/v1/namespaces/a/pods?watch=1&resourceVersion=" + rv1);
  ASSERT_EQ(watch.status(), 200);
  auto e1 = watch.next();
  auto e2 = watch.next();
  ASSERT_TRUE(e1 && e2);
  EXPECT_EQ((*e1)["type"], "MODIFIED");
  EXPECT_EQ(rv_of(*e1), rv2);
  EXPECT_EQ((*e2)["type"], "ADDED");
  EXPECT_EQ(rv_of(*e2), rv3);
  server.apply(pod("b", "other-namespace"));
  const std::string rv4 = server.apply(pod("a", "p3"));
  auto e3 = watch.next();
  ASSERT_TRUE(e3);
  EXPECT_EQ(rv_of(*e3), rv4);
}

TEST(FakeApiServerWatch, BookmarksOnlyForWatchesThatAskForThem) {
  FakeApiServer server;
  const std::string rv = server.apply(pod("a", "p1"));
  WatchReader with(server.url(),
                   "/api/v1/pods?watch=1&allowWatchBookmarks=true&resourceVersion=" + rv);
  WatchReader without(server.url(), "/api/v1/pods?watch=1&resourceVersion=" + rv);
  ASSERT_TRUE(server.wait_open_watches(2, 5s));
  server.apply(node("n1"));
  server.send_bookmarks();
  auto bookmark = with.next();
  ASSERT_TRUE(bookmark);
  EXPECT_EQ((*bookmark)["type"], "BOOKMARK");
  EXPECT_EQ((*bookmark)["object"]["kind"], "Pod");
  EXPECT_EQ(rv_of(*bookmark), std::to_string(server.revision()));
  EXPECT_FALSE((*bookmark)["object"]["metadata"].contains("name"));
  const std::string rv2 = server.apply(pod("a", "p2"));
  auto next = without.next();
  ASSERT_TRUE(next);
  EXPECT_EQ((*next)["type"], "ADDED");
  EXPECT_EQ(rv_of(*next), rv2);
}

TEST(FakeApiServerWatch, SendInitialEventsEndsWithTheInitialEventsBookmark) {
  FakeApiServer server;
  server.apply(pod("a", "p1"));
  server.apply(pod("a", "p2"));
  WatchReader watch(server.url(),
                    "/api/v1/pods?watch=1&sendInitialEvents=true&resourceVersionMatch="
                    "NotOlderThan&allowWatchBookmarks=true");
  EXPECT_EQ((*watch.next())["type"], "ADDED");
  EXPECT_EQ((*watch.next())["type"], "ADDED");
  auto end = watch.next();
  ASSERT_TRUE(end);
  Json expected = Json::parse(fixture("watch-bookmark-initial-events-end.jsonl"));
  expected["object"]["metadata"]["resourceVersion"] = std::to_string(server.revision());
  EXPECT_EQ(*end, expected);
}

TEST(FakeApiServerWatch, TooOldResourceVersionIsAnErrorEvent) {
  FakeApiServer server;
  const std::string old_rv = server.apply(pod("a", "p1"));
  server.apply(pod("a", "p2"));
  server.compact();
  WatchReader watch(server.url(), "/api/v1/pods?watch=1&resourceVersion=" + old_rv);
  EXPECT_EQ(watch.status(), 200);
  auto error = watch.next();
  ASSERT_TRUE(error);
  Json expected = Json::parse(fixture("watch-error-410-expired.jsonl"));
  expected["object"]["message"] =
      "too old resource version: " + old_rv + " (" + std::to_string(server.revision()) + ")";
  EXPECT_EQ(*error, expected);
  EXPECT_FALSE(watch.next());
  EXPECT_EQ(watch.end(), WatchReader::End::clean);

  // From the compaction point on, resuming works.
  WatchReader current(server.url(),
                      "/api/v1/pods?watch=1&resourceVersion=" + std::to_string(server.revision()));
  const std::string rv = server.apply(pod("a", "p3"));
  auto added = current.next();
  ASSERT_TRUE(added);
  EXPECT_EQ(rv_of(*added), rv);
}

TEST(FakeApiServerWatch, HistoryLimitExpiresOldResourceVersions) {
  FakeApiServerOptions options;
  options.history = 3;
  FakeApiServer server(options);
  const std::string rv1 = server.apply(pod("a", "p1"));
  for (int i = 0; i < 5; ++i) {
    server.apply(pod("a", "p" + std::to_string(i + 2)));
  }
  WatchReader watch(server.url(), "/api/v1/pods?watch=1&resourceVersion=" + rv1);
  auto error = watch.next();
  ASSERT_TRUE(error);
  EXPECT_EQ((*error)["type"], "ERROR");
  EXPECT_EQ((*error)["object"]["code"], 410);
}

TEST(FakeApiServerWatch, DropWatchesBreaksTheStream) {
  FakeApiServer server;
  WatchReader watch(server.url(), "/api/v1/pods?watch=1");
  ASSERT_TRUE(server.wait_open_watches(1, 5s));
  server.apply(pod("a", "p1"));
  ASSERT_TRUE(watch.next());
  server.drop_watches();
  EXPECT_FALSE(watch.next());
  EXPECT_EQ(watch.end(), WatchReader::End::broken);
  // The slot is released once the handler has ended.
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (server.open_watches() != 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(server.open_watches(), 0u);
}

TEST(FakeApiServerWatch, SendWatchErrorEndsWithTheStatus) {
  FakeApiServer server;
  WatchReader watch(server.url(), "/api/v1/nodes?watch=1");
  ASSERT_TRUE(server.wait_open_watches(1, 5s));
  server.send_watch_error(500, "InternalError", "etcd went away");
  auto error = watch.next();
  ASSERT_TRUE(error);
  EXPECT_EQ(error->dump(),
            R"({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},)"
            R"("status":"Failure","message":"etcd went away","reason":"InternalError",)"
            R"("code":500}})");
  EXPECT_FALSE(watch.next());
  EXPECT_EQ(watch.end(), WatchReader::End::clean);
}

TEST(FakeApiServerWatch, TimeoutSecondsEndsTheStreamCleanly) {
  FakeApiServer server;
  const auto start = std::chrono::steady_clock::now();
  WatchReader watch(server.url(), "/api/v1/pods?watch=1&timeoutSeconds=1");
  EXPECT_FALSE(watch.next());
  EXPECT_EQ(watch.end(), WatchReader::End::clean);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GE(took, 900ms);
  EXPECT_LT(took, 4s);
}

TEST(FakeApiServerWatch, FieldSelectorTurnsMovesIntoAddedAndDeleted) {
  FakeApiServer server;
  server.apply(pod("a", "p1", "n1"));
  server.apply(pod("a", "p2", "n2"));
  WatchReader watch(server.url(), "/api/v1/pods?watch=1&fieldSelector=spec.nodeName%3Dn1");
  auto initial = watch.next();
  ASSERT_TRUE(initial);
  EXPECT_EQ((*initial)["object"]["metadata"]["name"], "p1");
  ASSERT_TRUE(server.wait_open_watches(1, 5s));

  const std::string moved_out = server.apply(pod("a", "p1", "n2"));
  auto gone = watch.next();
  ASSERT_TRUE(gone);
  EXPECT_EQ((*gone)["type"], "DELETED");
  EXPECT_EQ((*gone)["object"]["spec"]["nodeName"], "n1");  // the state it left
  EXPECT_EQ(rv_of(*gone), moved_out);

  server.apply(pod("a", "p2", "n3"));  // outside before and after: nothing
  const std::string moved_in = server.apply(pod("a", "p2", "n1"));
  auto came = watch.next();
  ASSERT_TRUE(came);
  EXPECT_EQ((*came)["type"], "ADDED");
  EXPECT_EQ((*came)["object"]["metadata"]["name"], "p2");
  EXPECT_EQ(rv_of(*came), moved_in);
}

TEST(FakeApiServerWatch, LabelSelectorOnWatch) {
  FakeApiServer server;
  WatchReader watch(server.url(), "/api/v1/pods?watch=1&labelSelector=app%3Ddb");
  ASSERT_TRUE(server.wait_open_watches(1, 5s));
  server.apply(pod("a", "w", "", "web"));
  const std::string rv = server.apply(pod("a", "d", "", "db"));
  auto e = watch.next();
  ASSERT_TRUE(e);
  EXPECT_EQ(rv_of(*e), rv);
}

TEST(FakeApiServerWatch, ManyConcurrentWatchesAllFollow) {
  FakeApiServer server;
  constexpr size_t kWatches = 70;
  std::vector<std::unique_ptr<WatchReader>> watches;
  for (size_t i = 0; i < kWatches; ++i) {
    watches.push_back(std::make_unique<WatchReader>(server.url(), "/api/v1/nodes?watch=1"));
  }
  ASSERT_TRUE(server.wait_open_watches(kWatches, 10s));
  const std::string rv = server.apply(node("n1"));
  for (auto& w : watches) {
    auto e = w->next();
    ASSERT_TRUE(e);
    EXPECT_EQ(rv_of(*e), rv);
  }
  // Plain requests are still served while every watch is open.
  EXPECT_EQ(call(server.url(), "GET", "/api/v1/nodes").status, 200);
}

TEST(FakeApiServerWatch, DestructorEndsOpenStreamsPromptly) {
  auto server = std::make_unique<FakeApiServer>();
  WatchReader idle_keepalive_neighbour(server->url(), "/api/v1/pods?watch=1");
  WatchReader watch(server->url(), "/api/v1/nodes?watch=1");
  ASSERT_TRUE(server->wait_open_watches(2, 5s));
  const auto start = std::chrono::steady_clock::now();
  server.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  EXPECT_FALSE(watch.next());
  EXPECT_NE(watch.end(), WatchReader::End::open);
}

TEST(FakeApiServerWatch, ManyServersStartAndStopQuickly) {
  // Poco's accept loop alone would hold each stop for 250 ms.
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 20; ++i) {
    FakeApiServer server;
    EXPECT_EQ(call(server.url(), "GET", "/api/v1/nodes").status, 200);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 4s);
}

TEST(FakeApiServerWatch, ClientGoingAwayReleasesTheWatch) {
  FakeApiServer server;
  {
    WatchReader watch(server.url(), "/api/v1/pods?watch=1");
    ASSERT_TRUE(server.wait_open_watches(1, 5s));
  }
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (server.open_watches() != 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(server.open_watches(), 0u);
}

}  // namespace
}  // namespace hami::testing::test
