// Watch-stream lines as the API server writes them.
#include "kube/watch_event.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "test_files.hpp"

namespace hami::kube {
namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty())
      out.push_back(line);
  }
  return out;
}

TEST(WatchEvent, PodStreamFixture) {
  const auto stream = lines(testing::apiserver_fixture("watch-pods-stream.jsonl"));
  ASSERT_EQ(stream.size(), 5U);
  const WatchEventType types[] = {WatchEventType::Added, WatchEventType::Modified,
                                  WatchEventType::Modified, WatchEventType::Bookmark,
                                  WatchEventType::Deleted};
  const char* versions[] = {"918302", "918310", "918315", "918400", "918477"};
  for (size_t i = 0; i < stream.size(); ++i) {
    const WatchEvent e = parse_watch_event(stream[i]);
    EXPECT_EQ(e.type, types[i]) << i;
    EXPECT_EQ(e.resource_version, versions[i]) << i;
    if (e.type != WatchEventType::Bookmark) {
      EXPECT_EQ(object_key(e.object()), "ml-team/llm-serve-6f7d8c9b5-k2l3m");
    }
  }
}

TEST(WatchEvent, ErrorAndInitialEventsBookmark) {
  const WatchEvent error =
      parse_watch_event(lines(testing::apiserver_fixture("watch-error-410-expired.jsonl"))[0]);
  EXPECT_EQ(error.type, WatchEventType::Error);
  EXPECT_EQ(error.code, 410);
  EXPECT_EQ(error.reason, "Expired");
  EXPECT_EQ(error.message, "too old resource version: 657887 (680402)");
  const WatchEvent bookmark = parse_watch_event(
      lines(testing::apiserver_fixture("watch-bookmark-initial-events-end.jsonl"))[0]);
  EXPECT_EQ(bookmark.type, WatchEventType::Bookmark);
  EXPECT_EQ(bookmark.resource_version, "918300");
}

TEST(WatchEvent, MalformedLinesThrow) {
  EXPECT_THROW(parse_watch_event("{"), WatchEventError);
  EXPECT_THROW(parse_watch_event("[]"), WatchEventError);
  EXPECT_THROW(parse_watch_event(R"({"type":"SOMETHING","object":{}})"), WatchEventError);
  EXPECT_THROW(parse_watch_event(R"({"type":"ADDED"})"), WatchEventError);
  EXPECT_THROW(parse_watch_event(R"({"type":"ADDED","object":{"metadata":{}}})"), WatchEventError);
  EXPECT_THROW(parse_watch_event(R"({"type":"BOOKMARK","object":{"metadata":{}}})"),
               WatchEventError);
  EXPECT_THROW(parse_watch_event(R"({"type":"ERROR","object":"x"})"), WatchEventError);
}

TEST(WatchEvent, KeysAndVersions) {
  const auto ns = testing::parse(R"({"metadata":{"name":"n1","resourceVersion":"5"}})");
  EXPECT_EQ(object_key(ns), "n1");
  EXPECT_EQ(resource_version_of(ns), "5");
  EXPECT_TRUE(resource_version_newer("10", "9"));  // integers, not text
  EXPECT_FALSE(resource_version_newer("9", "10"));
  EXPECT_FALSE(resource_version_newer("10", "10"));
  EXPECT_TRUE(resource_version_newer("b", "a"));  // opaque: any change counts
  EXPECT_FALSE(resource_version_newer("a", "a"));
  EXPECT_TRUE(resource_version_newer("1", ""));
}

}  // namespace
}  // namespace hami::kube
