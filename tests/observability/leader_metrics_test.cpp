// hami_scheduler_is_leader and hami_scheduler_cache_synced: exact exposition
// lines, and values read at every scrape.
#include "observability/leader_metrics.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>

#include "observability/metrics_registry.hpp"

namespace hami::observability {
namespace {

TEST(LeaderMetrics, ExposeBothGaugesWithHelpAndType) {
  MetricsRegistry registry;
  std::atomic<bool> leader{true};
  std::atomic<bool> synced{false};
  add_leader_metrics(registry, {.is_leader = [&] { return leader.load(); },
                                .synced = [&] { return synced.load(); }});
  const std::string text = registry.scrape();
  EXPECT_NE(text.find("# HELP hami_scheduler_is_leader Whether this scheduler is the leader (1) "
                      "or not (0).\n"
                      "# TYPE hami_scheduler_is_leader gauge\n"
                      "hami_scheduler_is_leader 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# HELP hami_scheduler_cache_synced Whether this scheduler's cluster view "
                      "is synced for scheduling (1) or not (0).\n"
                      "# TYPE hami_scheduler_cache_synced gauge\n"
                      "hami_scheduler_cache_synced 0\n"),
            std::string::npos)
      << text;
  EXPECT_TRUE(registry.last_problems().empty());
}

TEST(LeaderMetrics, FollowEveryChange) {
  MetricsRegistry registry;
  std::atomic<bool> leader{true};
  std::atomic<bool> synced{true};
  add_leader_metrics(registry, {.is_leader = [&] { return leader.load(); },
                                .synced = [&] { return synced.load(); }});
  EXPECT_NE(registry.scrape().find("\nhami_scheduler_cache_synced 1\n"), std::string::npos);
  leader = false;
  synced = false;
  const std::string text = registry.scrape();
  EXPECT_NE(text.find("\nhami_scheduler_is_leader 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nhami_scheduler_cache_synced 0\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("hami_scheduler_is_leader 1"), std::string::npos) << text;
}

TEST(LeaderMetrics, BothFunctionsAreRequired) {
  MetricsRegistry registry;
  EXPECT_THROW(add_leader_metrics(registry, {.is_leader = [] { return true; }, .synced = {}}),
               std::invalid_argument);
  EXPECT_THROW(add_leader_metrics(registry, {.is_leader = {}, .synced = [] { return true; }}),
               std::invalid_argument);
}

}  // namespace
}  // namespace hami::observability
