// The scheduler's own metrics: requests per route and status class,
// filter/bind/lock/admission/watch recording hooks, plugin status.
#include <gtest/gtest.h>

#include <stdexcept>

#include "exposition_parser.hpp"
#include "observability/plugin_metrics.hpp"
#include "observability/request_metrics.hpp"
#include "observability/scheduler_metrics.hpp"

namespace {

using namespace hami::observability;
using hami::testing::parse_exposition;
using std::chrono::milliseconds;

TEST(StatusClass, Boundaries) {
  EXPECT_EQ(status_class(100), "1xx");
  EXPECT_EQ(status_class(200), "2xx");
  EXPECT_EQ(status_class(299), "2xx");
  EXPECT_EQ(status_class(308), "3xx");
  EXPECT_EQ(status_class(404), "4xx");
  EXPECT_EQ(status_class(599), "5xx");
  EXPECT_EQ(status_class(99), "other");
  EXPECT_EQ(status_class(600), "other");
  EXPECT_EQ(method_label("POST"), "POST");
  EXPECT_EQ(method_label("post"), "other");
  EXPECT_EQ(method_label("BREW"), "other");
}

TEST(RequestMetrics, CountsAndTimesPerRouteMethodAndClass) {
  MetricsRegistry registry;
  RequestMetrics requests(registry);
  requests.observe("/filter", "POST", 200, milliseconds(3));
  requests.observe("/filter", "POST", 200, milliseconds(30));
  requests.observe("/filter", "POST", 413, milliseconds(1));
  requests.observe("", "GET", 404, milliseconds(0));
  requests.observe("/bind", "FROB", 405, milliseconds(0));
  EXPECT_EQ(&requests.route("/filter", "POST"), &requests.route("/filter", "POST"));

  const auto p = parse_exposition(registry.scrape());
  const std::string total = "hami_scheduler_http_requests_total";
  EXPECT_EQ(p.value(total, {{"route", "/filter"}, {"method", "POST"}, {"status_class", "2xx"}}), 2);
  EXPECT_EQ(p.value(total, {{"route", "/filter"}, {"method", "POST"}, {"status_class", "4xx"}}), 1);
  EXPECT_EQ(p.value(total, {{"route", "unmatched"}, {"method", "GET"}, {"status_class", "4xx"}}),
            1);
  EXPECT_EQ(p.value(total, {{"route", "/bind"}, {"method", "other"}}), 1);
  const std::string hist = "hami_scheduler_http_request_duration_seconds";
  const std::map<std::string, std::string> ok{
      {"route", "/filter"}, {"method", "POST"}, {"status_class", "2xx"}};
  EXPECT_EQ(p.value(hist + "_count", ok), 2);
  EXPECT_DOUBLE_EQ(p.value(hist + "_sum", ok), 0.033);
  auto with_le = ok;
  with_le["le"] = "0.005";
  EXPECT_EQ(p.value(hist + "_bucket", with_le), 1);
  with_le["le"] = "0.025";
  EXPECT_EQ(p.value(hist + "_bucket", with_le), 1);
  with_le["le"] = "0.05";
  EXPECT_EQ(p.value(hist + "_bucket", with_le), 2);
}

TEST(RequestMetrics, InstrumentedHandlerRecordsItsStatusAndExceptions) {
  MetricsRegistry registry;
  RequestMetrics requests(registry);
  auto ok =
      instrument(requests, "/webhook", "POST",
                 [](const hami::server::Request&, hami::server::Response& r) { r.status = 201; });
  auto broken = instrument(requests, "/bind", "POST",
                           [](const hami::server::Request&, hami::server::Response&) {
                             throw std::runtime_error("boom");
                           });
  hami::server::Request request{.method = "POST",
                                .path = "/webhook",
                                .content_type = "application/json",
                                .body = "{}",
                                .peer = "127.0.0.1:1",
                                .headers = {}};
  hami::server::Response response;
  ok(request, response);
  EXPECT_EQ(response.status, 201);
  EXPECT_THROW(broken(request, response), std::runtime_error);

  const auto p = parse_exposition(registry.scrape());
  EXPECT_EQ(p.value("hami_scheduler_http_requests_total",
                    {{"route", "/webhook"}, {"status_class", "2xx"}}),
            1);
  EXPECT_EQ(
      p.value("hami_scheduler_http_requests_total", {{"route", "/bind"}, {"status_class", "5xx"}}),
      1);
}

TEST(SchedulerMetrics, EverySeriesExistsFromTheStart) {
  MetricsRegistry registry;
  SchedulerMetrics metrics(registry);
  const auto p = parse_exposition(registry.scrape());
  EXPECT_EQ(p.find("hami_scheduler_filter_total").size(), 4u);
  EXPECT_EQ(p.find("hami_scheduler_bind_total").size(), 5u);
  EXPECT_EQ(p.find("hami_scheduler_admission_decisions_total").size(), 4u);
  EXPECT_EQ(p.find("hami_scheduler_node_lock_wait_seconds_count").size(), 3u);
  EXPECT_EQ(p.find("hami_scheduler_watch_relists_total").size(), 6u);
  EXPECT_EQ(p.find("hami_scheduler_watch_reconnects_total").size(), 6u);
  EXPECT_EQ(p.find("hami_scheduler_extender_nodes_total").size(), 2u);
  EXPECT_EQ(p.find("hami_scheduler_extender_node_cache_entries").size(), 1u);
  EXPECT_EQ(p.find("hami_scheduler_extender_node_cache_bytes").size(), 1u);
  for (const auto& f : p.families) {
    for (const auto& s : f.samples) {
      if (!s.name.ends_with("_bucket")) {
        EXPECT_EQ(s.value, 0) << s.name;
      }
    }
  }
}

TEST(SchedulerMetrics, FilterOutcomesFromTheScheduler) {
  MetricsRegistry registry;
  SchedulerMetrics metrics(registry);
  hami::scheduling::FilterOutcome fit;
  fit.fit = {0, 2};
  fit.failed = {{"n1", "no room"}};
  metrics.record_filter(fit, 3);
  hami::scheduling::FilterOutcome none;
  none.failed = {{"n1", "x"}};
  metrics.record_filter(none, 1);
  hami::scheduling::FilterOutcome passthrough;
  passthrough.passthrough = true;
  metrics.record_filter(passthrough, 7);
  hami::scheduling::FilterOutcome error;
  error.error = "extender args missing pod";
  metrics.record_filter(error, 0);

  const auto p = parse_exposition(registry.scrape());
  for (const char* outcome : {"fit", "no_fit", "passthrough", "error"})
    EXPECT_EQ(p.value("hami_scheduler_filter_total", {{"outcome", outcome}}), 1) << outcome;
  EXPECT_EQ(p.value("hami_scheduler_filter_candidate_nodes_count"), 4);
  EXPECT_EQ(p.value("hami_scheduler_filter_candidate_nodes_sum"), 11);
  EXPECT_EQ(p.value("hami_scheduler_filter_feasible_nodes_sum"), 9);  // 2 + 0 + 7 + 0
  EXPECT_EQ(p.value("hami_scheduler_filter_feasible_nodes_bucket", {{"le", "0"}}), 2);
}

TEST(SchedulerMetrics, FullNodesBySourceAndWhatTheCacheHolds) {
  MetricsRegistry registry;
  SchedulerMetrics metrics(registry);
  metrics.record_full_nodes(0, 1000, 1000, 10'776'280);
  metrics.record_full_nodes(995, 5, 1000, 10'776'300);
  const auto p = parse_exposition(registry.scrape());
  EXPECT_EQ(p.value("hami_scheduler_extender_nodes_total", {{"source", "cached"}}), 995);
  EXPECT_EQ(p.value("hami_scheduler_extender_nodes_total", {{"source", "parsed"}}), 1005);
  EXPECT_EQ(p.value("hami_scheduler_extender_node_cache_entries"), 1000);
  EXPECT_EQ(p.value("hami_scheduler_extender_node_cache_bytes"), 10'776'300);
}

TEST(SchedulerMetrics, BindOutcomesFromTheSchedulersText) {
  EXPECT_EQ(classify_bind_error(""), BindResult::success);
  EXPECT_EQ(classify_bind_error("node gpu-a has been locked within 5m0s: node lock contention"),
            BindResult::lock_contention);
  EXPECT_EQ(classify_bind_error("pod ml/p does not fit on node gpu-a: CardInsufficientMemory"),
            BindResult::no_fit);
  EXPECT_EQ(classify_bind_error("pod \"p\" not found"), BindResult::not_found);
  EXPECT_EQ(classify_bind_error("node \"n\" not found"), BindResult::not_found);
  EXPECT_EQ(classify_bind_error("Precondition failed: UID in precondition: a"), BindResult::error);

  MetricsRegistry registry;
  SchedulerMetrics metrics(registry);
  metrics.record_bind("");
  metrics.record_bind("");
  metrics.record_bind("node gpu-a has been locked within 5m0s: node lock contention");
  metrics.record_node_lock(LockResult::acquired, milliseconds(2));
  metrics.node_lock_observer()(LockResult::contention, milliseconds(40));
  metrics.record_admission(AdmissionResult::denied);
  metrics.record_watch_reconnect("pods");
  metrics.record_relist("pods");
  metrics.record_relist("configmaps");
  const auto p = parse_exposition(registry.scrape());
  EXPECT_EQ(p.value("hami_scheduler_bind_total", {{"outcome", "success"}}), 2);
  EXPECT_EQ(p.value("hami_scheduler_bind_total", {{"outcome", "lock_contention"}}), 1);
  EXPECT_EQ(p.value("hami_scheduler_node_lock_wait_seconds_count", {{"outcome", "acquired"}}), 1);
  EXPECT_EQ(p.value("hami_scheduler_node_lock_wait_seconds_bucket",
                    {{"outcome", "contention"}, {"le", "0.025"}}),
            0);
  EXPECT_EQ(p.value("hami_scheduler_node_lock_wait_seconds_bucket",
                    {{"outcome", "contention"}, {"le", "0.05"}}),
            1);
  EXPECT_EQ(p.value("hami_scheduler_admission_decisions_total", {{"result", "denied"}}), 1);
  EXPECT_EQ(p.value("hami_scheduler_watch_reconnects_total", {{"resource", "pods"}}), 1);
  EXPECT_EQ(p.value("hami_scheduler_watch_relists_total", {{"resource", "pods"}}), 1);
  EXPECT_EQ(p.value("hami_scheduler_watch_relists_total", {{"resource", "other"}}), 1);
}

TEST(PluginMetrics, LoadStatusAndAbiVersions) {
  MetricsRegistry registry;
  PluginMetrics plugins(registry);
  plugins.record({"nvidia", "hami-nvidia", "device", "0.1.0", "1.0", true});
  plugins.record({"broken", "", "scheduling", "", "", false});
  const auto p = parse_exposition(registry.scrape());
  EXPECT_EQ(p.value("hami_scheduler_plugin_loaded", {{"name", "nvidia"},
                                                     {"plugin", "hami-nvidia"},
                                                     {"kind", "device"},
                                                     {"version", "0.1.0"},
                                                     {"abi_version", "1.0"}}),
            1);
  EXPECT_EQ(p.value("hami_scheduler_plugin_loaded", {{"name", "broken"}}), 0);
  EXPECT_EQ(p.value("hami_scheduler_host_abi_info", {{"abi_version", "1.2"}}), 1);
}

}  // namespace
