// LeaderTerm: a pass marks only the term it began in synced.
#include "kube/leader_term.hpp"

#include <gtest/gtest.h>

namespace {

using hami::kube::LeaderTerm;

TEST(LeaderTerm, NothingIsSyncedBeforeLeading) {
  LeaderTerm t;
  EXPECT_FALSE(t.synced());
  EXPECT_EQ(t.status(), "not leading (leadership term 0)");
  EXPECT_FALSE(t.complete_pass(t.begin_pass()));
  EXPECT_FALSE(t.synced());
}

TEST(LeaderTerm, APassOfTheCurrentTermSyncsIt) {
  LeaderTerm t;
  t.change(true);
  EXPECT_EQ(t.status(), "registration pass of leadership term 1 not completed yet");
  const uint64_t pass = t.begin_pass();
  EXPECT_FALSE(t.synced());
  EXPECT_TRUE(t.complete_pass(pass));
  EXPECT_TRUE(t.synced());
  EXPECT_EQ(t.status(), "");
}

TEST(LeaderTerm, LosingLeadershipClearsSynced) {
  LeaderTerm t;
  t.change(true);
  ASSERT_TRUE(t.complete_pass(t.begin_pass()));
  t.change(false);
  EXPECT_FALSE(t.synced());
  EXPECT_EQ(t.status(), "not leading (leadership term 2)");
}

TEST(LeaderTerm, APassFromBeforeAFailoverDoesNotSyncTheNewTerm) {
  LeaderTerm t;
  t.change(true);                        // term 1
  const uint64_t late = t.begin_pass();  // begins in term 1 ...
  t.change(false);                       // term 2: B leads
  t.change(true);                        // term 3: A again
  EXPECT_FALSE(t.complete_pass(late));   // ... completes in term 3
  EXPECT_FALSE(t.synced());
  EXPECT_EQ(t.status(), "registration pass of leadership term 3 not completed yet");
  EXPECT_TRUE(t.complete_pass(t.begin_pass()));
  EXPECT_TRUE(t.synced());
}

TEST(LeaderTerm, APassCompletingAfterLeadershipWasLostSyncsNothing) {
  LeaderTerm t;
  t.change(true);
  const uint64_t pass = t.begin_pass();
  t.change(false);
  EXPECT_FALSE(t.complete_pass(pass));
  EXPECT_FALSE(t.synced());
}

}  // namespace
