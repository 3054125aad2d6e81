// The HAMi node lock (reference §6.2) over the Kubernetes backend: two
// hosts (each its own cache) sharing the fake API server — contention,
// conflict retry, expiry, a dead owner, and a release that must not drop
// another pod's lock.
#include <atomic>

#include "cluster/node_lock.hpp"
#include "kube/kube_cluster.hpp"
#include "kube_env.hpp"

namespace hami::e2e {
namespace {

using hami::testing::FakeApiServer;

constexpr int64_t kNow = 1'750'000'000;  // 2025-06-15T15:06:40Z

struct Host {
  explicit Host(const FakeApiServer& fake, std::atomic<int64_t>& clock)
      : cluster(client(fake), options()), locker(cluster, [&clock] { return clock.load(); }) {
    cluster.start();
  }
  static std::shared_ptr<kube::ApiClient> client(const FakeApiServer& fake) {
    kube::ApiConfig c;
    c.server = fake.url();
    c.qps = 0;
    c.max_retries = 1;
    return std::make_shared<kube::ApiClient>(c);
  }
  static kube::KubeClusterOptions options() {
    kube::KubeClusterOptions o;
    o.backoff_initial = std::chrono::milliseconds(10);
    o.backoff_max = std::chrono::milliseconds(100);
    return o;
  }
  kube::KubernetesClusterState cluster;
  cluster::NodeLocker locker;
};

struct KubeNodeLock : ::testing::Test {
  KubeNodeLock() {
    fake.apply(namespace_object("ml"));
    fake.apply(gpu_node("gpu-a", 1));
    for (const char* name : {"p1", "p2"})
      fake.apply(gpu_pod("ml", name, std::string("uid-") + name, 1000, 0).dump());
    a = std::make_unique<Host>(fake, clock);
    b = std::make_unique<Host>(fake, clock);
    EXPECT_TRUE(a->cluster.wait_synced(10s));
    EXPECT_TRUE(b->cluster.wait_synced(10s));
  }
  std::string lock() const {
    return annotation(stored(fake, "Node", "", "gpu-a"), "hami.io/mutex.lock");
  }
  std::string lock_error(Host& host, const char* pod) {
    try {
      host.locker.lock("gpu-a", "ml", pod);
    } catch (const cluster::NodeLockError& e) {
      return e.what();
    }
    return "";
  }

  FakeApiServer fake;
  std::atomic<int64_t> clock{kNow};
  std::unique_ptr<Host> a;
  std::unique_ptr<Host> b;
};

TEST_F(KubeNodeLock, OneHostHoldsItTheOtherMeetsContention) {
  a->locker.lock("gpu-a", "ml", "p1");
  EXPECT_EQ(lock(), "2025-06-15T15:06:40Z,ml,p1");
  // Re-entrant for the same pod.
  EXPECT_EQ(lock_error(*a, "p1"), "");
  // b may not have seen the write yet: the resourceVersion precondition
  // turns its stale view into a 409, a re-read and then contention.
  EXPECT_EQ(lock_error(*b, "p2"), "node gpu-a has been locked within 5m0s: node lock contention");
  EXPECT_EQ(lock(), "2025-06-15T15:06:40Z,ml,p1");
}

TEST_F(KubeNodeLock, ConflictFromAnUnrelatedUpdateIsRetried) {
  fake.fail_next("PATCH", "/api/v1/nodes/gpu-a", 409, 2);
  a->locker.lock("gpu-a", "ml", "p1");
  EXPECT_EQ(lock(), "2025-06-15T15:06:40Z,ml,p1");
}

TEST_F(KubeNodeLock, ExpiredLockIsTakenOverByTheOtherHost) {
  a->locker.lock("gpu-a", "ml", "p1");
  clock += 301;
  b->locker.lock("gpu-a", "ml", "p2");
  EXPECT_EQ(lock(), "2025-06-15T15:11:41Z,ml,p2");
}

TEST_F(KubeNodeLock, LockOfADeletedPodIsTakenOver) {
  a->locker.lock("gpu-a", "ml", "p1");
  fake.remove("Pod", "ml", "p1");
  ASSERT_TRUE(eventually([&] { return b->cluster.pod("ml", "p1") == nullptr; }));
  b->locker.lock("gpu-a", "ml", "p2");
  EXPECT_EQ(lock(), "2025-06-15T15:06:40Z,ml,p2");
}

TEST_F(KubeNodeLock, ReleaseNeverDropsAnotherPodsLock) {
  a->locker.lock("gpu-a", "ml", "p1");
  ASSERT_TRUE(eventually([&] {
    const auto n = b->cluster.node("gpu-a");
    return n && n->annotation("hami.io/mutex.lock").has_value();
  }));
  EXPECT_FALSE(b->locker.release("gpu-a", "ml", "p2"));
  EXPECT_EQ(lock(), "2025-06-15T15:06:40Z,ml,p1");
  EXPECT_TRUE(a->locker.release("gpu-a", "ml", "p1"));
  EXPECT_EQ(lock(), "<none>");
}

}  // namespace
}  // namespace hami::e2e
