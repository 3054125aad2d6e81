// Leader detection against the fake API server: the passive follower of the
// kube-scheduler Lease (HAMi reference §1.8) and the active elector
// (kubernetes.md §4.7), with manual clocks where timing is asserted.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "fake_apiserver.hpp"
#include "kube/api_client.hpp"
#include "kube/leader_always.hpp"
#include "kube/leader_elector.hpp"
#include "kube/leader_follower.hpp"
#include "kube/leader_lease.hpp"

namespace {

using namespace hami;
using namespace std::chrono_literals;
using hami::testing::FakeApiServer;

struct ManualClock {
  std::atomic<int64_t> ms{1'000'000};
  std::chrono::steady_clock::time_point operator()() const {
    return std::chrono::steady_clock::time_point(std::chrono::milliseconds(ms.load()));
  }
  void advance(std::chrono::milliseconds d) { ms += d.count(); }
};

std::shared_ptr<kube::ApiClient> client_for(const FakeApiServer& fake) {
  kube::ApiConfig config;
  config.server = fake.url();
  config.qps = 0;
  config.request_timeout = 2s;
  config.max_retries = 1;
  return std::make_shared<kube::ApiClient>(config);
}

std::string lease_json(std::string_view holder, int duration, std::string_view renew) {
  return R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"kube-scheduler","namespace":"kube-system"},"spec":{"holderIdentity":")" +
         std::string(holder) + R"(","leaseDurationSeconds":)" + std::to_string(duration) +
         R"(,"acquireTime":"2026-07-20T09:40:00.000000Z","renewTime":")" + std::string(renew) +
         R"(","leaseTransitions":3}})";
}

template <typename F>
bool eventually(F done, std::chrono::milliseconds limit = 10s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    std::this_thread::sleep_for(2ms);
  }
  return true;
}

rapidjson::Document stored_lease(const FakeApiServer& fake, std::string_view ns,
                                 std::string_view name) {
  rapidjson::Document doc;
  const auto text = fake.object("Lease", ns, name);
  if (text)
    doc.Parse(text->c_str());
  return doc;
}

TEST(LeaseHelpers, MicroTimeAndHolderMatching) {
  const auto t = std::chrono::system_clock::time_point(std::chrono::microseconds(1784540472345678));
  EXPECT_EQ(kube::micro_time(t), "2026-07-20T09:41:12.345678Z");
  EXPECT_EQ(kube::micro_time(std::chrono::system_clock::time_point(std::chrono::seconds(0))),
            "1970-01-01T00:00:00.000000Z");
  EXPECT_TRUE(kube::holder_matches("node-a", "node-a"));
  EXPECT_TRUE(kube::holder_matches("node-a_6f1c2d3e-aaaa", "node-a"));
  EXPECT_FALSE(kube::holder_matches("node-ab_6f1c", "node-a"));
  EXPECT_FALSE(kube::holder_matches("node", "node-a"));
  EXPECT_FALSE(kube::holder_matches("", ""));
}

TEST(AlwaysLeader, IsLeaderWithAnOpenGate) {
  kube::AlwaysLeader leader("me");
  EXPECT_TRUE(leader.is_leader());
  EXPECT_EQ(leader.gate(), "");
  EXPECT_EQ(leader.holder(), "me");
  EXPECT_EQ(leader.detail(), "leader: leader election off (cluster.leaderElection.mode none)");
}

struct Follower : ::testing::Test {
  Follower() {
    kube::LeaseFollowerOptions o;
    o.identity = "node-a";
    o.clock = [this] { return clock(); };
    o.backoff_initial = 10ms;
    o.backoff_max = 50ms;
    follower = std::make_unique<kube::LeaseFollower>(client_for(fake), o);
    follower->on_change([this](bool leader, const std::string& detail) {
      std::lock_guard guard(mu);
      changes.push_back((leader ? "+ " : "- ") + detail);
    });
  }
  std::vector<std::string> seen() {
    std::lock_guard guard(mu);
    return changes;
  }

  FakeApiServer fake;
  ManualClock clock;
  std::mutex mu;
  std::vector<std::string> changes;
  std::unique_ptr<kube::LeaseFollower> follower;
};

TEST_F(Follower, FollowsTheHolderOfTheKubeSchedulerLease) {
  EXPECT_EQ(follower->gate(), "not the leader: lease kube-system/kube-scheduler not observed yet");
  fake.apply(lease_json("node-a_8a7b", 15, "2026-07-20T09:41:00.000000Z"));
  follower->start();
  ASSERT_TRUE(eventually([&] { return follower->is_leader(); })) << follower->detail();
  EXPECT_EQ(follower->gate(), "");
  EXPECT_EQ(follower->holder(), "node-a_8a7b");
  EXPECT_EQ(follower->detail(), "leader: lease kube-system/kube-scheduler is held by node-a_8a7b");

  // The other replica's kube-scheduler takes over.
  fake.apply(lease_json("node-b_1234", 15, "2026-07-20T09:41:20.000000Z"));
  ASSERT_TRUE(eventually([&] { return !follower->is_leader(); }));
  EXPECT_EQ(follower->gate(),
            "not the leader: lease kube-system/kube-scheduler is held by node-b_1234");

  fake.apply(lease_json("node-a_9c9c", 15, "2026-07-20T09:41:40.000000Z"));
  ASSERT_TRUE(eventually([&] { return follower->is_leader(); }));
  fake.remove("Lease", "kube-system", "kube-scheduler");
  ASSERT_TRUE(eventually([&] { return !follower->is_leader(); }));
  EXPECT_EQ(follower->gate(), "not the leader: lease kube-system/kube-scheduler not found");
  EXPECT_EQ(seen(), (std::vector<std::string>{
                        "+ leader: lease kube-system/kube-scheduler is held by node-a_8a7b",
                        "- not the leader: lease kube-system/kube-scheduler is held by node-b_1234",
                        "+ leader: lease kube-system/kube-scheduler is held by node-a_9c9c",
                        "- not the leader: lease kube-system/kube-scheduler not found"}));
}

TEST_F(Follower, LeaseNotRenewedInTimeMakesUsAFollower) {
  fake.apply(lease_json("node-a_8a7b", 15, "2026-07-20T09:41:00.000000Z"));
  follower->start();
  ASSERT_TRUE(eventually([&] { return follower->is_leader(); }));
  // Renewed 14 s later (a changed record): the 15 s window starts again.
  clock.advance(14s);
  fake.apply(lease_json("node-a_8a7b", 15, "2026-07-20T09:41:14.000000Z"));
  ASSERT_TRUE(eventually([&] { return follower->holder() == "node-a_8a7b"; }));
  // Wait until the follower has seen the renewal: the same record again
  // (a resync) must not extend the window.
  std::this_thread::sleep_for(50ms);
  clock.advance(14s);
  follower->evaluate();
  EXPECT_TRUE(follower->is_leader()) << follower->detail();
  clock.advance(1s);
  follower->evaluate();
  EXPECT_FALSE(follower->is_leader());
  EXPECT_EQ(follower->gate(),
            "not the leader: lease kube-system/kube-scheduler held by node-a_8a7b was not "
            "renewed within 15s");
}

TEST_F(Follower, PrefixOfAnotherHostIsNotUs) {
  fake.apply(lease_json("node-ab_1", 15, "2026-07-20T09:41:00.000000Z"));
  follower->start();
  ASSERT_TRUE(eventually([&] { return follower->holder() == "node-ab_1"; }));
  EXPECT_FALSE(follower->is_leader());
  EXPECT_EQ(follower->gate(),
            "not the leader: lease kube-system/kube-scheduler is held by node-ab_1");
}

TEST_F(Follower, UnreachableServerSaysWhy) {
  fake.set_refusing(true);
  follower->start();
  ASSERT_TRUE(eventually(
      [&] { return follower->detail().find("not observed yet: ") != std::string::npos; }));
  const std::string gate = follower->gate();
  EXPECT_EQ(gate.rfind("not the leader: lease kube-system/kube-scheduler not observed yet: ", 0),
            0u)
      << gate;
  fake.set_refusing(false);
  fake.apply(lease_json("node-a_1", 15, "2026-07-20T09:41:00.000000Z"));
  ASSERT_TRUE(eventually([&] { return follower->is_leader(); })) << follower->detail();
}

kube::LeaseElectorOptions elector_options(std::string identity, ManualClock* clock) {
  kube::LeaseElectorOptions o;
  o.namespace_ = "hami";
  o.name = "hami-scheduler";
  o.identity = std::move(identity);
  o.lease_duration = 1s;
  o.renew_deadline = 800ms;
  o.retry_period = 100ms;
  if (clock != nullptr) {
    o.clock = [clock] { return (*clock)(); };
    // The wall clock moves with the manual clock, from 2026-07-20T09:41:12.345678Z.
    o.wall_clock = [clock] {
      return std::chrono::system_clock::time_point(1784540472345678us) +
             std::chrono::milliseconds(clock->ms.load() - 1'000'000);
    };
  }
  return o;
}

TEST(Elector, OneLeaderAndTakeoverAfterTheLeaseExpires) {
  FakeApiServer fake;
  ManualClock clock_a;
  ManualClock clock_b;
  kube::LeaseElector a(client_for(fake), elector_options("replica-a", &clock_a));
  kube::LeaseElector b(client_for(fake), elector_options("replica-b", &clock_b));

  EXPECT_TRUE(a.step());  // creates the lease
  EXPECT_FALSE(b.step());
  EXPECT_TRUE(a.is_leader());
  EXPECT_FALSE(b.is_leader());
  EXPECT_EQ(b.gate(), "not the leader: lease hami/hami-scheduler is held by replica-a");
  auto lease = stored_lease(fake, "hami", "hami-scheduler");
  ASSERT_TRUE(lease.IsObject());
  EXPECT_STREQ(lease["spec"]["holderIdentity"].GetString(), "replica-a");
  EXPECT_EQ(lease["spec"]["leaseDurationSeconds"].GetInt(), 1);
  EXPECT_STREQ(lease["spec"]["renewTime"].GetString(), "2026-07-20T09:41:12.345678Z");
  EXPECT_EQ(lease["spec"]["leaseTransitions"].GetInt(), 0);

  // a renews; b keeps seeing fresh records.
  clock_a.advance(500ms);
  clock_b.advance(500ms);
  EXPECT_TRUE(a.step());
  EXPECT_FALSE(b.step());

  // a dies without releasing. b sees the same record for a whole lease
  // duration (by its own clock) before taking over.
  a.abandon();
  clock_b.advance(900ms);
  EXPECT_FALSE(b.step());
  EXPECT_FALSE(b.is_leader());
  clock_b.advance(100ms);
  EXPECT_TRUE(b.step());
  EXPECT_TRUE(b.is_leader());
  EXPECT_EQ(b.gate(), "");
  lease = stored_lease(fake, "hami", "hami-scheduler");
  EXPECT_STREQ(lease["spec"]["holderIdentity"].GetString(), "replica-b");
  EXPECT_EQ(lease["spec"]["leaseTransitions"].GetInt(), 1);

  // a comes back: it must not take the lease b renews.
  clock_a.advance(5s);
  EXPECT_FALSE(a.step());
  EXPECT_EQ(a.gate(), "not the leader: lease hami/hami-scheduler is held by replica-b");
}

TEST(Elector, RenewFailureBeyondTheDeadlineStopsLeadingAtOnce) {
  FakeApiServer fake;
  ManualClock clock;
  kube::LeaseElector a(client_for(fake), elector_options("replica-a", &clock));
  std::vector<std::string> changes;
  a.on_change([&](bool leader, const std::string& detail) {
    changes.push_back((leader ? "+ " : "- ") + detail);
  });
  EXPECT_TRUE(a.step());
  fake.set_refusing(true);
  clock.advance(500ms);
  EXPECT_FALSE(a.step());  // failed, but within the deadline: still leading
  EXPECT_TRUE(a.is_leader());
  clock.advance(300ms);
  // No step ran: the gate closes on its own once the deadline has passed.
  EXPECT_FALSE(a.is_leader());
  EXPECT_EQ(a.gate(), "not the leader: lease hami/hami-scheduler not renewed within 800ms");
  EXPECT_FALSE(a.step());
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0], "+ leader: lease hami/hami-scheduler is held by replica-a");
  EXPECT_EQ(changes[1].rfind("- not the leader: lease hami/hami-scheduler not renewed within "
                             "800ms: ",
                             0),
            0u)
      << changes[1];
  fake.set_refusing(false);
}

TEST(Elector, RunningElectorsAgreeAndAReleasedLeaseIsTakenAtOnce) {
  FakeApiServer fake;
  auto a = std::make_unique<kube::LeaseElector>(client_for(fake), elector_options("a", nullptr));
  kube::LeaseElector b(client_for(fake), elector_options("b", nullptr));
  a->start();
  ASSERT_TRUE(eventually([&] { return a->is_leader(); }));
  b.start();
  // b keeps trying for a while (several retry periods) and never leads.
  for (int i = 0; i < 5; ++i) {
    std::this_thread::sleep_for(100ms);
    EXPECT_TRUE(a->is_leader());
    EXPECT_FALSE(b.is_leader());
  }
  a->stop();  // releases: holder "", leaseDurationSeconds 1
  EXPECT_FALSE(a->is_leader());
  EXPECT_EQ(a->gate(), "not the leader: stopped (lease hami/hami-scheduler released)");
  ASSERT_TRUE(eventually([&] { return b.is_leader(); }, 3s));
  const auto lease = stored_lease(fake, "hami", "hami-scheduler");
  EXPECT_STREQ(lease["spec"]["holderIdentity"].GetString(), "b");
  b.stop();
  const auto released = stored_lease(fake, "hami", "hami-scheduler");
  EXPECT_STREQ(released["spec"]["holderIdentity"].GetString(), "");
  EXPECT_EQ(released["spec"]["leaseDurationSeconds"].GetInt(), 1);
}

}  // namespace
