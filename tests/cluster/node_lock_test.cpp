#include "cluster/node_lock.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "cluster/file_cluster.hpp"

namespace {

using namespace hami::cluster;

constexpr const char* kCluster = R"(
kind: List
items:
- kind: Node
  metadata: {name: n1}
- kind: Pod
  metadata: {name: owner, namespace: ns}
  spec: {containers: [{name: c}]}
- kind: Pod
  metadata: {name: other, namespace: ns}
  spec: {containers: [{name: c}]}
)";

constexpr int64_t kNow = 1'750'000'000;  // 2025-06-15T15:06:40Z

struct NodeLock : ::testing::Test {
  std::unique_ptr<FileClusterState> state = FileClusterState::from_text(kCluster, "t");
  int64_t now = kNow;
  NodeLocker locker{*state, [this] { return now; }};

  std::optional<std::string> lock_value() const {
    const auto v = state->node("n1")->annotation(kNodeLockAnnotation);
    return v ? std::optional<std::string>(*v) : std::nullopt;
  }
  void set_lock(const std::string& value) {
    state->patch_node_annotations("n1", {{std::string(kNodeLockAnnotation), value}}, std::nullopt);
  }
};

TEST(Rfc3339, FormatsAndParses) {
  EXPECT_EQ(format_rfc3339(kNow), "2025-06-15T15:06:40Z");
  EXPECT_EQ(parse_rfc3339("2025-06-15T15:06:40Z"), kNow);
  EXPECT_EQ(parse_rfc3339("2025-06-15T23:06:40+08:00"), kNow);
  EXPECT_EQ(parse_rfc3339("2025-06-15T15:06:40.123Z"), kNow);
  EXPECT_FALSE(parse_rfc3339("2025-06-15 15:06:40Z"));
  EXPECT_FALSE(parse_rfc3339("garbage"));
  EXPECT_EQ(go_duration(300), "5m0s");
  EXPECT_EQ(go_duration(90), "1m30s");
  EXPECT_EQ(go_duration(3661), "1h1m1s");
  EXPECT_EQ(go_duration(5), "5s");
}

TEST_F(NodeLock, LockWritesTimeNamespaceAndName) {
  locker.lock("n1", "ns", "owner");
  EXPECT_EQ(lock_value(), "2025-06-15T15:06:40Z,ns,owner");
  // Re-entrant for the same pod.
  EXPECT_NO_THROW(locker.lock("n1", "ns", "owner"));
}

TEST_F(NodeLock, ContentionNamesHamiReason) {
  locker.lock("n1", "ns", "owner");
  try {
    locker.lock("n1", "ns", "other");
    FAIL();
  } catch (const NodeLockError& e) {
    EXPECT_TRUE(e.contention());
    EXPECT_STREQ(e.what(), "node n1 has been locked within 5m0s: node lock contention");
  }
  EXPECT_EQ(lock_value(), "2025-06-15T15:06:40Z,ns,owner");
}

TEST_F(NodeLock, ExpiredLockIsTakenOver) {
  set_lock(format_rfc3339(kNow - 301) + ",ns,owner");
  locker.lock("n1", "ns", "other");
  EXPECT_EQ(lock_value(), "2025-06-15T15:06:40Z,ns,other");
}

TEST_F(NodeLock, LockOfDeletedPodIsTakenOver) {
  set_lock(format_rfc3339(kNow - 10) + ",ns,gone");
  locker.lock("n1", "ns", "other");
  EXPECT_EQ(lock_value(), "2025-06-15T15:06:40Z,ns,other");
}

TEST_F(NodeLock, LegacyLockBlocksUntilExpired) {
  set_lock(format_rfc3339(kNow - 10));
  EXPECT_THROW(locker.lock("n1", "ns", "owner"), NodeLockError);
  now += 300;
  locker.lock("n1", "ns", "owner");
  EXPECT_EQ(lock_value()->substr(20), ",ns,owner");
}

TEST_F(NodeLock, MalformedLockFailsClosed) {
  set_lock("a,b");
  try {
    locker.lock("n1", "ns", "owner");
    FAIL();
  } catch (const NodeLockError& e) {
    EXPECT_FALSE(e.contention());
  }
  EXPECT_EQ(lock_value(), "a,b");
}

TEST_F(NodeLock, UnknownNodeIsNotFound) {
  try {
    locker.lock("nope", "ns", "owner");
    FAIL();
  } catch (const ClusterError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::NotFound);
  }
}

TEST_F(NodeLock, ReleaseOnlyRemovesOwnLock) {
  locker.lock("n1", "ns", "owner");
  EXPECT_FALSE(locker.release("n1", "ns", "other"));
  EXPECT_TRUE(lock_value());
  EXPECT_TRUE(locker.release("n1", "ns", "owner"));
  EXPECT_FALSE(lock_value());
  EXPECT_FALSE(locker.release("n1", "ns", "owner"));  // nothing left
  set_lock(format_rfc3339(kNow));                     // legacy: anyone releases
  EXPECT_TRUE(locker.release("n1", "ns", "owner"));
}

TEST_F(NodeLock, ObserverIsToldEveryOutcome) {
  std::vector<NodeLockOutcome> seen;
  NodeLockOptions options;
  options.observer = [&seen](NodeLockOutcome outcome, std::chrono::nanoseconds waited) {
    EXPECT_GE(waited.count(), 0);
    seen.push_back(outcome);
  };
  NodeLocker observed(
      *state, [this] { return now; }, options);
  observed.lock("n1", "ns", "owner");
  EXPECT_THROW(observed.lock("n1", "ns", "other"), NodeLockError);
  set_lock("not a lock");
  EXPECT_THROW(observed.lock("n1", "ns", "other"), NodeLockError);
  EXPECT_THROW(observed.lock("ghost-node", "ns", "other"), ClusterError);
  EXPECT_EQ(seen,
            (std::vector<NodeLockOutcome>{NodeLockOutcome::acquired, NodeLockOutcome::contention,
                                          NodeLockOutcome::error, NodeLockOutcome::error}));
}

TEST_F(NodeLock, ConcurrentLockersExactlyOneWins) {
  // Pods exist for every contender so no lock counts as dangling.
  for (int i = 0; i < 8; ++i) {
    rapidjson::Document pod;
    const std::string json = R"({"kind":"Pod","metadata":{"name":"p)" + std::to_string(i) +
                             R"(","namespace":"ns"},"spec":{"containers":[{"name":"c"}]}})";
    pod.Parse(json.c_str());
    state->upsert(pod);
  }
  std::atomic<int> winners{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      try {
        locker.lock("n1", "ns", "p" + std::to_string(i));
        winners.fetch_add(1);
      } catch (const NodeLockError&) {
      }
    });
  }
  for (auto& t : threads)
    t.join();
  EXPECT_EQ(winners.load(), 1);
}

}  // namespace

// A vendor's own lock (ABI 1.2 HAMI_NODE_LOCK_OWN, HAMi's Cambricon lock):
// another annotation, the time alone, 2 minutes.
struct OwnNodeLock : NodeLock {
  static NodeLockOptions own_options() {
    NodeLockOptions o;
    o.annotation = "cambricon.com/dsmlu.lock";
    o.owner_in_value = false;
    o.expiry_seconds = 120;
    return o;
  }
  NodeLocker own{*state, [this] { return now; }, own_options()};

  std::optional<std::string> own_value() const {
    const auto v = state->node("n1")->annotation("cambricon.com/dsmlu.lock");
    return v ? std::optional<std::string>(*v) : std::nullopt;
  }
  void set_own(const std::string& value) {
    state->patch_node_annotations("n1", {{"cambricon.com/dsmlu.lock", value}}, std::nullopt);
  }
};

TEST_F(OwnNodeLock, WritesTheTimeAloneAndLeavesTheSharedLockAlone) {
  EXPECT_EQ(own.lock("n1", "ns", "owner"), "2025-06-15T15:06:40Z");
  EXPECT_EQ(own_value(), "2025-06-15T15:06:40Z");
  EXPECT_EQ(lock_value(), std::nullopt);
}

TEST_F(OwnNodeLock, ALockWithinTheExpiryIsContentionEvenForTheSamePod) {
  own.lock("n1", "ns", "owner");
  now += 119;
  try {
    own.lock("n1", "ns", "owner");
    FAIL();
  } catch (const NodeLockError& e) {
    EXPECT_TRUE(e.contention());
    EXPECT_STREQ(e.what(),
                 "node n1 has been locked within 2m0s: node lock cambricon.com/dsmlu.lock "
                 "contention");
  }
}

TEST_F(OwnNodeLock, AnExpiredLockIsTakenOverAndAnOwnerValueIsInvalid) {
  set_own(format_rfc3339(kNow - 121));
  EXPECT_EQ(own.lock("n1", "ns", "other"), "2025-06-15T15:06:40Z");
  set_own("2025-06-15T15:06:40Z,ns,owner");
  try {
    own.lock("n1", "ns", "other");
    FAIL();
  } catch (const NodeLockError& e) {
    EXPECT_FALSE(e.contention());
    EXPECT_STREQ(e.what(),
                 "node n1 has an invalid lock annotation "
                 "cambricon.com/dsmlu.lock=\"2025-06-15T15:06:40Z,ns,owner\"");
  }
}

// HAMi's Cambricon release deleted the lock on any failed bind, also one
// that failed because another pod held it (X2): here only the bind that
// wrote a value removes it, and only while the node still holds it.
TEST_F(OwnNodeLock, ReleaseRemovesOnlyTheValueThisBindWrote) {
  const std::string written = own.lock("n1", "ns", "owner");
  EXPECT_FALSE(own.release("n1", "ns", "other"));  // a bind that took nothing
  EXPECT_FALSE(own.release("n1", "ns", "other", "2025-06-15T15:00:00Z"));
  EXPECT_EQ(own_value(), written);
  // Expired and taken over by another bind: no longer this bind's.
  now += 121;
  const std::string newer = own.lock("n1", "ns", "other");
  EXPECT_FALSE(own.release("n1", "ns", "owner", written));
  EXPECT_EQ(own_value(), newer);
  EXPECT_TRUE(own.release("n1", "ns", "other", newer));
  EXPECT_EQ(own_value(), std::nullopt);
}
