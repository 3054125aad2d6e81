// GET /metrics over HTTP: the plain-HTTP MetricsListener (HAMi's :9395)
// serving a registry through register_metrics_routes, on 127.0.0.1 with an
// ephemeral port.
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/StreamCopier.h>
#include <gtest/gtest.h>

#include <sstream>

#include "exposition_parser.hpp"
#include "observability/exposition.hpp"
#include "observability/metrics_listener.hpp"
#include "observability/request_metrics.hpp"

namespace {

using namespace hami::observability;
using hami::testing::parse_exposition;

struct Reply {
  int status = 0;
  std::string content_type;
  std::string allow;
  std::string body;
};

Reply fetch(uint16_t port, const std::string& method, const std::string& path,
            const std::string& host = "127.0.0.1") {
  Poco::Net::HTTPClientSession session(host, port);
  session.setTimeout(Poco::Timespan(10, 0));
  Poco::Net::HTTPRequest request(method, path, Poco::Net::HTTPMessage::HTTP_1_1);
  if (method == "POST")
    request.setContentLength(0);
  session.sendRequest(request);
  Poco::Net::HTTPResponse response;
  std::istream& in = session.receiveResponse(response);
  Reply r;
  r.status = static_cast<int>(response.getStatus());
  r.content_type = response.getContentType();
  r.allow = response.get("Allow", "");
  std::ostringstream body;
  Poco::StreamCopier::copyStream(in, body);
  r.body = body.str();
  return r;
}

TEST(MetricsListener, ServesTheRegistryAsText) {
  MetricsRegistry registry;
  registry.counter("hits_total", "Hits.", {"pod"}).labels({"a\"b"}).inc(7);
  MetricsListener listener(registry, {"127.0.0.1", 0});
  ASSERT_NE(listener.port(), 0);
  EXPECT_EQ(listener.address(), "127.0.0.1:" + std::to_string(listener.port()));
  listener.start();

  const Reply r = fetch(listener.port(), "GET", "/metrics");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, kExpositionContentType);
  EXPECT_EQ(r.body, registry.scrape());
  EXPECT_EQ(parse_exposition(r.body).value("hits_total", {{"pod", "a\"b"}}), 7);
  // The query string is ignored, as Prometheus may add one.
  EXPECT_EQ(fetch(listener.port(), "GET", "/metrics?x=1").status, 200);

  const Reply missing = fetch(listener.port(), "GET", "/other");
  EXPECT_EQ(missing.status, 404);
  const Reply post = fetch(listener.port(), "POST", "/metrics");
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(post.allow, "GET");
}

TEST(MetricsListener, ServesIpv6Loopback) {
  MetricsRegistry registry;
  std::unique_ptr<MetricsListener> listener;
  try {
    listener = std::make_unique<MetricsListener>(registry, hami::config::ListenAddress{"::1", 0});
  } catch (const std::runtime_error& e) {
    GTEST_SKIP() << "no IPv6 loopback here: " << e.what();
  }
  listener->start();
  EXPECT_EQ(fetch(listener->port(), "GET", "/metrics", "::1").status, 200);
}

TEST(MetricsListener, StopsAndRefusesConnections) {
  MetricsRegistry registry;
  MetricsListener listener(registry, {"127.0.0.1", 0});
  listener.start();
  const uint16_t port = listener.port();
  EXPECT_EQ(fetch(port, "GET", "/metrics").status, 200);
  listener.stop();
  listener.stop();  // idempotent
  EXPECT_ANY_THROW(fetch(port, "GET", "/metrics"));
}

TEST(MetricsListener, BindFailureNamesTheAddress) {
  MetricsRegistry registry;
  MetricsListener first(registry, {"127.0.0.1", 0});
  try {
    MetricsListener second(registry, {"127.0.0.1", first.port()});
    // SO_REUSEADDR may let a second bind through on some kernels only
    // when nothing listens; with a listener it must fail.
    FAIL() << "second bind succeeded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("127.0.0.1:" + std::to_string(first.port())),
              std::string::npos)
        << e.what();
  }
}

class FailingCollector final : public Collector {
 public:
  void collect(std::vector<MetricFamily>&) const override {
    throw std::runtime_error("ledger unavailable");
  }
};

TEST(MetricsListener, AScrapeWithProblemsStillAnswersAndIsLogged) {
  MetricsRegistry registry;
  registry.gauge("up_value", "Up.", {}).labels({}).set(1);
  registry.add_collector(std::make_shared<FailingCollector>());
  std::ostringstream log_output;
  const hami::log::Logger logger(hami::log::Level::info, hami::log::Format::text, &log_output);
  MetricsListener listener(registry, {"127.0.0.1", 0}, {}, &logger);
  listener.start();
  const Reply r = fetch(listener.port(), "GET", "/metrics");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(parse_exposition(r.body).value("up_value"), 1);
  EXPECT_NE(log_output.str().find("metrics scrape incomplete"), std::string::npos)
      << log_output.str();
  EXPECT_NE(log_output.str().find("collector failed: ledger unavailable"), std::string::npos)
      << log_output.str();
}

}  // namespace
