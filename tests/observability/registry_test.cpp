// Instruments, families and the registry: values, validation, collectors
// and concurrent recording while scraping.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "exposition_parser.hpp"
#include "observability/metrics_registry.hpp"

namespace {

using namespace hami::observability;
using hami::testing::parse_exposition;

TEST(Instruments, CounterGaugeHistogramValues) {
  MetricsRegistry registry;
  auto& c = registry.counter("jobs_total", "Jobs.", {"kind"});
  c.labels({"a"}).inc();
  c.labels({"a"}).inc(4);
  c.labels({"b"}).inc();
  auto& g = registry.gauge("temperature", "Temp.", {});
  g.labels({}).set(20);
  g.labels({}).add(-2.5);
  auto& h = registry.histogram("size", "Sizes.", {}, {1, 10});
  for (const double v : {0.5, 1.0, 5.0, 100.0})
    h.labels({}).observe(v);
  h.labels({}).observe(std::numeric_limits<double>::quiet_NaN());  // ignored

  const std::string text = registry.scrape();
  EXPECT_NE(text.find("jobs_total{kind=\"a\"} 5\njobs_total{kind=\"b\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("temperature 17.5\n"), std::string::npos);
  EXPECT_NE(text.find("size_bucket{le=\"1\"} 2\nsize_bucket{le=\"10\"} 3\n"
                      "size_bucket{le=\"+Inf\"} 4\nsize_sum 106.5\nsize_count 4\n"),
            std::string::npos)
      << text;
  EXPECT_NO_THROW(parse_exposition(text));
}

TEST(Instruments, SeriesReferencesAreStable) {
  MetricsRegistry registry;
  auto& c = registry.counter("n_total", "N.", {"k"});
  Counter& first = c.labels({"x"});
  for (int i = 0; i < 100; ++i)
    c.labels({std::to_string(i)});
  EXPECT_EQ(&first, &c.labels({"x"}));
}

TEST(Instruments, BadDefinitionsAndLabelCountsThrow) {
  MetricsRegistry registry;
  EXPECT_THROW(registry.counter("bad name", "x", {}), std::invalid_argument);
  EXPECT_THROW(registry.counter("ok_total", "x", {"a", "a"}), std::invalid_argument);
  EXPECT_THROW(registry.histogram("h", "x", {"le"}, {1}), std::invalid_argument);
  EXPECT_THROW(registry.histogram("h2", "x", {}, {2, 1}), std::invalid_argument);
  auto& c = registry.counter("c_total", "x", {"a"});
  EXPECT_THROW(c.labels({"1", "2"}), std::invalid_argument);
  EXPECT_THROW(registry.gauge("c_total", "again", {}), std::invalid_argument);
}

TEST(Instruments, ExponentialBuckets) {
  EXPECT_EQ(exponential_buckets(1, 2, 4), (std::vector<double>{1, 2, 4, 8}));
  EXPECT_THROW(exponential_buckets(0, 2, 4), std::invalid_argument);
}

class FixedCollector final : public Collector {
 public:
  explicit FixedCollector(bool fail) : fail_(fail) {}
  void collect(std::vector<MetricFamily>& out) const override {
    if (fail_)
      throw std::runtime_error("source unavailable");
    MetricFamily f;
    f.name = "collected";
    f.help = "From a collector.";
    f.label_names = {"node"};
    f.add({"n1"}, 3);
    out.push_back(std::move(f));
    MetricFamily clash;  // takes a registered name: dropped
    clash.name = "registered_total";
    clash.type = MetricType::gauge;
    clash.add({}, 99);
    out.push_back(std::move(clash));
  }

 private:
  bool fail_;
};

TEST(Registry, CollectorsGetConstLabelsAndFailuresAreCounted) {
  MetricsRegistry registry;
  registry.counter("registered_total", "Registered.", {}).labels({}).inc();
  registry.add_collector(std::make_shared<FixedCollector>(false), {{"zone", "vGPU"}});
  registry.add_collector(std::make_shared<FixedCollector>(true));
  const auto first = parse_exposition(registry.scrape());
  EXPECT_EQ(first.value("collected", {{"node", "n1"}, {"zone", "vGPU"}}), 3);
  EXPECT_EQ(first.value("registered_total"), 1);
  const auto problems = registry.last_problems();
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0], "collector failed: source unavailable");
  // Collector failures are counted before the families are read, so each
  // scrape shows its own; dropped families are found after, so they show
  // in the next scrape.
  EXPECT_EQ(first.value("hami_scheduler_metrics_errors_total", {{"kind", "collector"}}), 1);
  EXPECT_TRUE(
      first.find("hami_scheduler_metrics_errors_total", {{"kind", "invalid_family"}}).empty());
  const auto second = parse_exposition(registry.scrape());
  EXPECT_EQ(second.value("hami_scheduler_metrics_errors_total", {{"kind", "collector"}}), 2);
  EXPECT_EQ(second.value("hami_scheduler_metrics_errors_total", {{"kind", "invalid_family"}}), 1);
}

TEST(Registry, RecordingDuringScrapesLosesNothing) {
  MetricsRegistry registry;
  auto& requests = registry.counter("req_total", "Requests.", {"route"});
  auto& latency = registry.histogram("lat_seconds", "Latency.", {"route"}, {0.001, 0.01, 0.1});
  constexpr int kThreads = 2;
  constexpr int kPerThread = 20000;
  std::atomic<bool> stop{false};
  std::atomic<int> scrapes{0};
  std::thread scraper([&] {
    // Every intermediate scrape must itself be well-formed.
    while (!stop.load()) {
      parse_exposition(registry.scrape());
      scrapes.fetch_add(1);
    }
  });
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const std::string route = (i % 2 == 0) ? "/filter" : "/bind";
        requests.labels({route}).inc();
        latency.labels({route}).observe(0.005 * (t + 1));
      }
    });
  }
  for (auto& w : writers)
    w.join();
  stop.store(true);
  scraper.join();
  const auto parsed = parse_exposition(registry.scrape());
  EXPECT_EQ(parsed.value("req_total", {{"route", "/filter"}}), kThreads * kPerThread / 2);
  EXPECT_EQ(parsed.value("req_total", {{"route", "/bind"}}), kThreads * kPerThread / 2);
  EXPECT_EQ(parsed.value("lat_seconds_count", {{"route", "/bind"}}), kThreads * kPerThread / 2);
  EXPECT_EQ(parsed.value("lat_seconds_bucket", {{"route", "/bind"}, {"le", "0.01"}}),
            kThreads * kPerThread / 2);
  EXPECT_GE(scrapes.load(), 1);
}

}  // namespace
