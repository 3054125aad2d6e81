// Concurrent clients: optimistic concurrency holds and watches see every
// write once, in revision order.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "fake_apiserver.hpp"
#include "test_client.hpp"
#include "test_objects.hpp"

namespace hami::testing::test {
namespace {

using namespace std::chrono_literals;

TEST(FakeApiServerConcurrency, ResourceVersionPreconditionLosesNoUpdate) {
  FakeApiServer server;
  Json n = Json::parse(node("n1"));
  n["metadata"]["annotations"]["counter"] = "0";
  server.apply(n.dump());
  constexpr int kThreads = 6;
  constexpr int kAttempts = 15;
  std::atomic<int> successes{0};
  std::atomic<int> conflicts{0};
  std::atomic<int> unexpected{0};
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < kAttempts; ++i) {
          const Json current = call(server.url(), "GET", "/api/v1/nodes/n1").json();
          const int counter =
              std::stoi(current["metadata"]["annotations"]["counter"].get<std::string>());
          Json patch = {{"metadata",
                         {{"resourceVersion", current["metadata"]["resourceVersion"]},
                          {"annotations", {{"counter", std::to_string(counter + 1)}}}}}};
          RequestOptions o;
          o.body = patch.dump();
          o.content_type = "application/merge-patch+json";
          const int status = call(server.url(), "PATCH", "/api/v1/nodes/n1", o).status;
          if (status == 200) {
            ++successes;
          } else if (status == 409) {
            ++conflicts;
          } else {
            ++unexpected;
          }
        }
      });
    }
  }
  EXPECT_EQ(unexpected.load(), 0);
  EXPECT_EQ(successes.load() + conflicts.load(), kThreads * kAttempts);
  EXPECT_GT(successes.load(), 0);
  const Json final_node = Json::parse(*server.object("Node", "", "n1"));
  EXPECT_EQ(final_node["metadata"]["annotations"]["counter"], std::to_string(successes.load()));
}

TEST(FakeApiServerConcurrency, WatchSeesEveryConcurrentWriteInOrder) {
  FakeApiServer server;
  WatchReader watch(server.url(), "/api/v1/pods?watch=1");
  ASSERT_TRUE(server.wait_open_watches(1, 5s));
  constexpr int kWriters = 4;
  constexpr int kWrites = 50;
  {
    std::vector<std::jthread> writers;
    for (int w = 0; w < kWriters; ++w) {
      writers.emplace_back([&server, w] {
        for (int i = 0; i < kWrites; ++i) {
          server.apply(pod("ns", "w" + std::to_string(w) + "-" + std::to_string(i % 5)));
        }
      });
    }
  }
  uint64_t last = 0;
  int added = 0;
  int modified = 0;
  for (int i = 0; i < kWriters * kWrites; ++i) {
    auto e = watch.next();
    ASSERT_TRUE(e) << "event " << i;
    const uint64_t rv =
        std::stoull((*e)["object"]["metadata"]["resourceVersion"].get<std::string>());
    EXPECT_GT(rv, last);
    last = rv;
    ((*e)["type"] == "ADDED" ? added : modified)++;
  }
  EXPECT_EQ(last, server.revision());
  EXPECT_EQ(added, kWriters * 5);
  EXPECT_EQ(modified, kWriters * (kWrites - 5));
}

TEST(FakeApiServerConcurrency, BindingRaceHasOneWinner) {
  FakeApiServer server;
  server.apply(pod("ns", "p"));
  constexpr int kBinders = 8;
  std::atomic<int> created{0};
  std::atomic<int> conflicts{0};
  {
    std::vector<std::jthread> binders;
    for (int b = 0; b < kBinders; ++b) {
      binders.emplace_back([&, b] {
        Json binding = {{"apiVersion", "v1"},
                        {"kind", "Binding"},
                        {"metadata", {{"name", "p"}, {"namespace", "ns"}}},
                        {"target", {{"kind", "Node"}, {"name", "node-" + std::to_string(b)}}}};
        RequestOptions o;
        o.body = binding.dump();
        o.content_type = "application/json";
        const int status =
            call(server.url(), "POST", "/api/v1/namespaces/ns/pods/p/binding", o).status;
        (status == 201 ? created : conflicts)++;
      });
    }
  }
  EXPECT_EQ(created.load(), 1);
  EXPECT_EQ(conflicts.load(), kBinders - 1);
}

}  // namespace
}  // namespace hami::testing::test
