// Reflector alone against the fake API server: bookmarks, selectors,
// ERROR events and 410 replies.
#include "kube/reflector.hpp"

#include <gtest/gtest.h>

#include <mutex>
#include <regex>

#include "cluster_env.hpp"
#include "kube/watch_event.hpp"
#include "recording_watcher.hpp"

namespace hami::kube {
namespace {

using namespace std::chrono_literals;
using hami::testing::FakeApiServer;
using testing::eventually;

// What the handlers were told, as text.
struct Journal {
  mutable std::mutex mu;
  std::vector<std::string> entries;
  std::vector<std::string> statuses;
  std::vector<std::string> restarts;  // "rewatch" / "relist"

  void add(std::string e) {
    std::lock_guard guard(mu);
    entries.push_back(std::move(e));
  }
  std::vector<std::string> get() const {
    std::lock_guard guard(mu);
    return entries;
  }
  std::vector<std::string> status_log() const {
    std::lock_guard guard(mu);
    return statuses;
  }
  std::vector<std::string> restart_log() const {
    std::lock_guard guard(mu);
    return restarts;
  }

  ReflectorHandlers handlers() {
    ReflectorHandlers h;
    h.replace = [this](Relist& r) {
      std::string e = "replace";
      for (const auto& o : r.objects.GetArray())
        e += " " + object_key(o);
      for (const auto& d : r.deleted)
        e += " -" + d;
      add(e);
    };
    h.added = [this](const rapidjson::Value& o) { add("added " + object_key(o)); };
    h.modified = [this](const rapidjson::Value& o) { add("modified " + object_key(o)); };
    h.deleted = [this](const rapidjson::Value& o) { add("deleted " + object_key(o)); };
    h.status = [this](const ReflectorStatus& s) {
      std::lock_guard guard(mu);
      statuses.push_back((s.synced ? "synced " : "unsynced ") + s.error);
    };
    h.restarted = [this](bool relist) {
      std::lock_guard guard(mu);
      restarts.emplace_back(relist ? "relist" : "rewatch");
    };
    return h;
  }
};

ReflectorOptions pod_options() {
  ReflectorOptions o;
  o.name = "pods";
  o.path = "/api/v1/pods";
  o.page_size = 2;
  o.watch_timeout = 30s;
  o.backoff_initial = 20ms;
  o.backoff_max = 200ms;
  return o;
}

std::vector<hami::testing::RecordedRequest> pod_watches(const FakeApiServer& server) {
  std::vector<hami::testing::RecordedRequest> out;
  for (auto& r : testing::requests_to(server, "GET", "/api/v1/pods")) {
    if (r.watch)
      out.push_back(std::move(r));
  }
  return out;
}

std::vector<std::string> pod_list_queries(const FakeApiServer& server) {
  std::vector<std::string> out;
  for (auto& r : testing::requests_to(server, "GET", "/api/v1/pods")) {
    if (!r.watch)
      out.push_back(std::move(r.query));
  }
  return out;
}

// The watch a reflector with pod_options() opens from `version`.
std::regex watch_query(const std::string& version) {
  return std::regex("watch=1&resourceVersion=" + version +
                    "&allowWatchBookmarks=true&timeoutSeconds=[3-5][0-9]");
}

class ReflectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* p : {"a", "b", "c"})
      server_.apply(testing::pod_object("ml", p, std::string("uid-") + p));
  }
  FakeApiServer server_;
  Journal journal_;
};

TEST_F(ReflectorTest, BookmarkKeepsTheVersionSoNothingIsReplayed) {
  Reflector reflector(testing::client_for(server_.url()), pod_options(), journal_.handlers());
  reflector.start();
  ASSERT_TRUE(eventually([&] { return reflector.status().synced; }));
  ASSERT_TRUE(server_.wait_open_watches(1, 5s));
  EXPECT_EQ(journal_.get(), (std::vector<std::string>{"replace ml/a ml/b ml/c"}));
  server_.apply(testing::pod_object("ml", "d", "uid-d"));
  ASSERT_TRUE(eventually([&] { return journal_.get().size() == 2; }));
  // Writes to other kinds move the store's revision past the last pod event.
  server_.apply(testing::namespace_object("x"));
  server_.apply(testing::namespace_object("y"));
  const std::string revision = std::to_string(server_.revision());
  server_.send_bookmarks();
  ASSERT_TRUE(eventually([&] { return reflector.resource_version() == revision; }))
      << reflector.resource_version();
  server_.clear_requests();
  server_.drop_watches();
  ASSERT_TRUE(eventually([&] { return !pod_watches(server_).empty(); }));
  const auto rewatch = pod_watches(server_);
  EXPECT_TRUE(rewatch[0].query.starts_with("watch=1&resourceVersion=" + revision + "&"))
      << rewatch[0].query;
  server_.apply(testing::pod_object("ml", "e", "uid-e"));
  ASSERT_TRUE(eventually([&] { return journal_.get().size() == 3; }));
  EXPECT_EQ(journal_.get(),
            (std::vector<std::string>{"replace ml/a ml/b ml/c", "added ml/d", "added ml/e"}));
  // The drop was reported, then cleared by the healthy re-watch.
  EXPECT_EQ(reflector.status().error, "");
}

TEST_F(ReflectorTest, FieldSelectorNarrowsListAndWatch) {
  auto options = pod_options();
  options.field_selector = "metadata.name=b";
  Reflector reflector(testing::client_for(server_.url()), options, journal_.handlers());
  reflector.start();
  ASSERT_TRUE(eventually([&] { return reflector.status().synced; }));
  ASSERT_TRUE(server_.wait_open_watches(1, 5s));
  EXPECT_EQ(journal_.get(), (std::vector<std::string>{"replace ml/b"}));
  const auto lists = testing::requests_to(server_, "GET", "/api/v1/pods");
  ASSERT_EQ(lists.size(), 2U);
  EXPECT_EQ(lists[0].query, "limit=2&resourceVersion=0&fieldSelector=metadata.name%3Db");
  EXPECT_TRUE(lists[1].query.ends_with("&fieldSelector=metadata.name%3Db")) << lists[1].query;
  server_.apply(testing::pod_object("ml", "a", "uid-a", "", R"({"x":"1"})"));
  server_.apply(testing::pod_object("ml", "b", "uid-b", "", R"({"x":"1"})"));
  ASSERT_TRUE(eventually([&] { return journal_.get().size() == 2; }));
  EXPECT_EQ(journal_.get()[1], "modified ml/b");
}

TEST_F(ReflectorTest, ErrorEventBacksOffAndRewatchesWithoutRelist) {
  Reflector reflector(testing::client_for(server_.url()), pod_options(), journal_.handlers());
  reflector.start();
  ASSERT_TRUE(eventually([&] { return reflector.status().synced; }));
  ASSERT_TRUE(server_.wait_open_watches(1, 5s));
  const std::string rv = reflector.resource_version();
  server_.clear_requests();
  server_.send_watch_error(500, "InternalError", "boom");
  ASSERT_TRUE(eventually([&] { return !pod_watches(server_).empty(); }));
  EXPECT_TRUE(pod_watches(server_)[0].query.starts_with("watch=1&resourceVersion=" + rv + "&"));
  const auto statuses = journal_.status_log();
  EXPECT_NE(std::find(statuses.begin(), statuses.end(),
                      "synced watch failed (attempt 1): ERROR event 500 InternalError: boom"),
            statuses.end())
      << ::testing::PrintToString(statuses);
  for (const auto& r : testing::requests_to(server_, "GET", "/api/v1/pods"))
    EXPECT_TRUE(r.watch) << "relisted: " << r.query;
  EXPECT_EQ(journal_.restart_log(), (std::vector<std::string>{"rewatch"}));
}

TEST_F(ReflectorTest, GoneWatchRelistsAndReportsDeletions) {
  Reflector reflector(testing::client_for(server_.url()), pod_options(), journal_.handlers());
  reflector.start();
  ASSERT_TRUE(eventually([&] { return reflector.status().synced; }));
  ASSERT_TRUE(server_.wait_open_watches(1, 5s));
  // The next watch is refused with HTTP 410 (not an ERROR event).
  server_.set_refusing(true);
  server_.drop_watches();
  server_.remove("Pod", "ml", "a");
  server_.fail_next("GET", "/api/v1/pods", 410, 1);
  server_.set_refusing(false);
  ASSERT_TRUE(eventually([&] { return journal_.get().size() >= 2; }))
      << ::testing::PrintToString(journal_.get());
  EXPECT_EQ(journal_.get()[1], "replace ml/b ml/c -ml/a");
  // The cut stream was a re-watch, the 410 a relist.
  const auto restarts = journal_.restart_log();
  ASSERT_GE(restarts.size(), 2U);
  EXPECT_EQ(restarts.front(), "rewatch");
  EXPECT_EQ(restarts.back(), "relist");
}

TEST_F(ReflectorTest, NormalStreamEndRewatchesAtOnceFromTheSameVersion) {
  auto options = pod_options();
  options.watch_timeout = 1s;  // the server ends each stream after 1 or 2 s
  Reflector reflector(testing::client_for(server_.url()), options, journal_.handlers());
  reflector.start();
  ASSERT_TRUE(eventually([&] { return reflector.status().synced; }));
  const std::string rv = reflector.resource_version();
  ASSERT_TRUE(eventually([&] { return pod_watches(server_).size() >= 2; }, 5s));
  const auto watches = pod_watches(server_);
  for (const auto& w : watches) {
    EXPECT_TRUE(w.query.starts_with("watch=1&resourceVersion=" + rv + "&")) << w.query;
    const auto at = w.query.find("timeoutSeconds=");
    ASSERT_NE(at, std::string::npos);
    const int seconds = std::stoi(w.query.substr(at + 15));
    EXPECT_TRUE(seconds == 1 || seconds == 2) << w.query;
  }
  // Not a failure: no error reported, no relist.
  for (const auto& s : journal_.status_log())
    EXPECT_EQ(s.find("failed"), std::string::npos) << s;
  EXPECT_EQ(journal_.get().size(), 1U);
  EXPECT_TRUE(journal_.restart_log().empty());
}

// The first list asks resourceVersion=0, which the API server answers from
// its watch cache, whole (limit ignored): one request, then the watch from
// that list's version.
TEST_F(ReflectorTest, FirstListAsksAnyVersionAndTakesTheWholeAnswer) {
  Reflector reflector(testing::client_for(server_.url()), pod_options(), journal_.handlers());
  reflector.start();
  ASSERT_TRUE(eventually([&] { return reflector.status().synced; }));
  ASSERT_TRUE(server_.wait_open_watches(1, 5s));
  EXPECT_EQ(pod_list_queries(server_), (std::vector<std::string>{"limit=2&resourceVersion=0"}));
  EXPECT_EQ(journal_.get(), (std::vector<std::string>{"replace ml/a ml/b ml/c"}));
  const std::string revision = std::to_string(server_.revision());
  EXPECT_EQ(reflector.resource_version(), revision);
  const auto watches = pod_watches(server_);
  ASSERT_EQ(watches.size(), 1U);
  EXPECT_TRUE(std::regex_match(watches[0].query, watch_query(revision))) << watches[0].query;
}

// After a watch answered 410, the relist asks the last resourceVersion
// seen, without limit ("not older than": the watch cache serves it, etcd
// is not read), then watches from that list's version.
TEST_F(ReflectorTest, RelistAfterGoneAsksTheLastVersionWithoutLimit) {
  Reflector reflector(testing::client_for(server_.url()), pod_options(), journal_.handlers());
  reflector.start();
  ASSERT_TRUE(eventually([&] { return reflector.status().synced; }));
  ASSERT_TRUE(server_.wait_open_watches(1, 5s));
  const std::string seen = server_.apply(testing::pod_object("ml", "d", "uid-d"));
  ASSERT_TRUE(eventually([&] { return reflector.resource_version() == seen; }));
  server_.apply(testing::namespace_object("x"));
  server_.clear_requests();
  server_.send_watch_error(410, "Expired", "too old resource version: 2 (9)");
  ASSERT_TRUE(eventually([&] { return pod_watches(server_).size() == 1; }));
  EXPECT_EQ(pod_list_queries(server_), (std::vector<std::string>{"resourceVersion=" + seen}));
  EXPECT_EQ(journal_.get().back(), "replace ml/a ml/b ml/c ml/d");
  EXPECT_EQ(journal_.restart_log(), (std::vector<std::string>{"relist"}));
  const std::string revision = std::to_string(server_.revision());
  EXPECT_EQ(reflector.resource_version(), revision);
  EXPECT_TRUE(std::regex_match(pod_watches(server_)[0].query, watch_query(revision)))
      << pod_watches(server_)[0].query;
}

// A BOOKMARK changes no object: no handler is told, the objects known stay
// as they were (a relist reports nothing gone), and only the version moves.
TEST_F(ReflectorTest, BookmarkOnlyAdvancesTheVersion) {
  Reflector reflector(testing::client_for(server_.url()), pod_options(), journal_.handlers());
  reflector.start();
  ASSERT_TRUE(eventually([&] { return reflector.status().synced; }));
  ASSERT_TRUE(server_.wait_open_watches(1, 5s));
  server_.apply(testing::namespace_object("x"));
  const std::string revision = std::to_string(server_.revision());
  server_.send_bookmarks();
  ASSERT_TRUE(eventually([&] { return reflector.resource_version() == revision; }));
  EXPECT_EQ(journal_.get(), (std::vector<std::string>{"replace ml/a ml/b ml/c"}));
  server_.clear_requests();
  server_.send_watch_error(410, "Expired", "too old resource version: 2 (9)");
  ASSERT_TRUE(eventually([&] { return pod_watches(server_).size() == 1; }));
  EXPECT_EQ(pod_list_queries(server_), (std::vector<std::string>{"resourceVersion=" + revision}));
  EXPECT_EQ(journal_.get(),
            (std::vector<std::string>{"replace ml/a ml/b ml/c", "replace ml/a ml/b ml/c"}));
}

// A server without watch cache pages every list, resourceVersion=0 ones
// included.
class ReflectorWithoutWatchCache : public ::testing::Test {
 protected:
  static hami::testing::FakeApiServerOptions no_watch_cache() {
    hami::testing::FakeApiServerOptions o;
    o.watch_cache = false;
    return o;
  }
  void SetUp() override {
    for (const char* p : {"a", "b", "c"})
      server_.apply(testing::pod_object("ml", p, std::string("uid-") + p));
  }
  FakeApiServer server_{no_watch_cache()};
  Journal journal_;
};

// The first list came back in pages: the reflector follows them (the
// continuation without resourceVersion, as the server requires), and
// keeps asking pages when it relists at a version.
TEST_F(ReflectorWithoutWatchCache, PagedFirstListKeepsLaterListsPaged) {
  Reflector reflector(testing::client_for(server_.url()), pod_options(), journal_.handlers());
  reflector.start();
  ASSERT_TRUE(eventually([&] { return reflector.status().synced; }));
  ASSERT_TRUE(server_.wait_open_watches(1, 5s));
  auto lists = pod_list_queries(server_);
  ASSERT_EQ(lists.size(), 2U) << ::testing::PrintToString(lists);
  EXPECT_EQ(lists[0], "limit=2&resourceVersion=0");
  EXPECT_TRUE(std::regex_match(lists[1], std::regex("limit=2&continue=[A-Za-z0-9_-]+")))
      << lists[1];
  EXPECT_EQ(journal_.get(), (std::vector<std::string>{"replace ml/a ml/b ml/c"}));
  const std::string version = reflector.resource_version();

  server_.clear_requests();
  server_.send_watch_error(410, "Expired", "too old resource version: 2 (9)");
  ASSERT_TRUE(eventually([&] { return pod_watches(server_).size() == 1; }));
  lists = pod_list_queries(server_);
  ASSERT_EQ(lists.size(), 2U) << ::testing::PrintToString(lists);
  EXPECT_EQ(lists[0], "limit=2&resourceVersion=" + version);
  EXPECT_TRUE(std::regex_match(lists[1], std::regex("limit=2&continue=[A-Za-z0-9_-]+")))
      << lists[1];
  EXPECT_EQ(journal_.get().back(), "replace ml/a ml/b ml/c");
}

// Without watch cache, a relist at a version etcd has compacted away gets
// 410: the reflector asks again at once with resourceVersion unset (a
// consistent read), then goes on from that list's version.
TEST_F(ReflectorWithoutWatchCache, ListAtACompactedVersionFallsBackToAConsistentRead) {
  Reflector reflector(testing::client_for(server_.url()), pod_options(), journal_.handlers());
  reflector.start();
  ASSERT_TRUE(eventually([&] { return reflector.status().synced; }));
  ASSERT_TRUE(server_.wait_open_watches(1, 5s));
  const std::string version = reflector.resource_version();
  // Cut off while a pod goes away and the history is compacted: the
  // re-watch from `version` gets 410, so does the list at it.
  server_.set_refusing(true);
  server_.drop_watches();
  ASSERT_TRUE(server_.remove("Pod", "ml", "a"));
  server_.compact();
  server_.apply(testing::namespace_object("after-compaction"));
  server_.clear_requests();
  server_.set_refusing(false);
  ASSERT_TRUE(eventually([&] {
    for (const auto& w : pod_watches(server_)) {
      if (w.query.starts_with("watch=1&resourceVersion=" + std::to_string(server_.revision())))
        return true;
    }
    return false;
  })) << ::testing::PrintToString(pod_list_queries(server_));
  const auto lists = testing::requests_to(server_, "GET", "/api/v1/pods");
  std::vector<std::string> sent;
  for (const auto& r : lists) {
    if (!r.watch)
      sent.push_back(r.query + " " + std::to_string(r.status));
  }
  EXPECT_EQ(sent, (std::vector<std::string>{"limit=2&resourceVersion=" + version + " 410",
                                            "limit=2 200"}));
  EXPECT_EQ(journal_.get().back(), "replace ml/b ml/c -ml/a");

  // The next relist asks the version again.
  const std::string next = reflector.resource_version();
  server_.clear_requests();
  server_.send_watch_error(410, "Expired", "too old resource version: 2 (9)");
  ASSERT_TRUE(eventually([&] { return pod_watches(server_).size() == 1; }));
  EXPECT_EQ(pod_list_queries(server_),
            (std::vector<std::string>{"limit=2&resourceVersion=" + next}));
}

TEST(ReflectorStop, StopIsPromptDuringBackoff) {
  std::string url;
  {
    FakeApiServer gone;
    url = gone.url();
  }
  auto options = pod_options();
  options.backoff_initial = 10s;
  options.backoff_max = 10s;
  Journal journal;
  Reflector reflector(testing::client_for(url), options, journal.handlers());
  reflector.start();
  ASSERT_TRUE(eventually([&] { return reflector.status().attempts >= 1; }));
  EXPECT_TRUE(reflector.status().error.starts_with("list failed (attempt 1): "))
      << reflector.status().error;
  const auto before = std::chrono::steady_clock::now();
  reflector.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - before, 1s);
  EXPECT_FALSE(reflector.status().synced);
}

}  // namespace
}  // namespace hami::kube
