// The host's two listeners over real HTTPS on 127.0.0.1: each route answers
// on its own listener and is 404 on the other, the health routes answer on
// both, one shared socket serves everything, and client certificates can be
// required on either listener without the other.
#include <gtest/gtest.h>

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "app/scheduler_host.hpp"
#include "plugin_entries.hpp"
#include "test_support.hpp"

namespace hami::test {
namespace {

const std::string kPluginDir = HAMI_PLUGIN_DIR;
const std::string kSourceDir = HAMI_SOURCE_DIR;

// The demo cluster, the real plugins, self-signed TLS, both listeners on
// ephemeral loopback ports.
config::HostConfig host_config() {
  config::HostConfig c;
  c.source = "listeners.yaml";
  c.listen.host = "127.0.0.1";
  c.listen.port = 0;
  c.tls.self_signed = true;
  c.extender.listen.host = "127.0.0.1";
  c.extender.listen.port = 0;
  c.plugins.directory = kPluginDir;
  c.plugins.allow_writable = true;
  hami::testing::use_production_plugins(c);
  c.cluster.source = config::ClusterSource::file;
  c.cluster.file = kSourceDir + "/config/demo-cluster.yaml";
  return c;
}

// One request on a fresh connection; nullopt when no answer came (a
// refused connection or handshake, a connection closed before the answer).
std::optional<ParsedResponse> request(SSL_CTX* ctx, uint16_t port, const std::string& method,
                                      const std::string& path, const std::string& body,
                                      const std::string& ipv4 = "127.0.0.1") {
  std::optional<TlsConnection> connection;
  try {
    connection.emplace(ctx, port, ipv4);
  } catch (const std::runtime_error&) {
    return std::nullopt;  // connect failed
  }
  TlsConnection& conn = *connection;
  if (!conn.handshake())
    return std::nullopt;
  std::string head = method + " " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n";
  if (method == "POST") {
    head +=
        "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  }
  if (!conn.send(head + "\r\n" + body))
    return std::nullopt;
  const auto raw = conn.read_response();
  if (!raw)
    return std::nullopt;
  return parse_response(*raw);
}

struct Route {
  const char* method;
  const char* path;
  const char* body;
  int status;  // on its own listener
};

// What every route answers where it belongs (the demo cluster, no pod).
const std::vector<Route> kExtenderRoutes = {
    {"POST", "/filter", R"({"NodeNames":["gpu-a100-0"]})", 200},
    {"POST", "/schedule", R"({"NodeNames":["gpu-a100-0"]})", 200},
    {"POST", "/prioritize", "{}", 400},
    {"POST", "/bind", R"({"PodName":"ghost","PodNamespace":"ml","Node":"cpu-0"})", 200},
    {"GET", "/allocations", "", 200},
    {"POST", "/explain", R"({"kind":"Pod"})", 200},
};
const std::vector<Route> kWebhookRoutes = {
    {"POST", "/mutate-pod", "{}", 400},
    {"POST", "/webhook", "{}", 400},
    // Node agents call the refit where they reach the scheduler; a refusal
    // is in-band (HTTP 200).
    {"POST", "/refit", "{}", 200},
    {"GET", "/metrics", "", 200},
};
const std::vector<Route> kHealthRoutes = {
    {"GET", "/healthz", "", 200},
    {"GET", "/status", "", 200},
    {"GET", "/readyz", "", 200},
};

class Listeners : public ::testing::Test {
 protected:
  void start(const config::HostConfig& config) {
    host = std::make_unique<app::SchedulerHost>(config, logger);
    host->start();
  }
  std::optional<ParsedResponse> call(uint16_t port, const Route& r) {
    return request(ctx.get(), port, r.method, r.path, r.body);
  }
  uint16_t webhook_port() const { return host->server().port(); }
  uint16_t extender_port() const { return host->extender_server().port(); }

  std::ostringstream log_sink;
  log::Logger logger{log::Level::warn, log::Format::text, &log_sink};
  SslCtxPtr ctx = make_client_ctx({});
  std::unique_ptr<app::SchedulerHost> host;
};

TEST_F(Listeners, EachRouteAnswersOnItsOwnListenerAndIs404OnTheOther) {
  start(host_config());
  ASSERT_FALSE(host->listeners_shared());
  ASSERT_NE(webhook_port(), extender_port());
  const auto check = [&](const std::vector<Route>& routes, uint16_t own, uint16_t other) {
    for (const Route& r : routes) {
      const auto here = call(own, r);
      ASSERT_TRUE(here.has_value()) << r.path;
      EXPECT_EQ(here->status, r.status) << r.method << " " << r.path << ": " << here->body;
      const auto there = call(other, r);
      ASSERT_TRUE(there.has_value()) << r.path;
      EXPECT_EQ(there->status, 404) << r.method << " " << r.path << ": " << there->body;
      EXPECT_EQ(there->body, std::string(R"({"error":"not found: )") + r.path + "\"}");
    }
  };
  check(kExtenderRoutes, extender_port(), webhook_port());
  check(kWebhookRoutes, webhook_port(), extender_port());
}

TEST_F(Listeners, HealthAnswersOnBoth) {
  start(host_config());
  for (const Route& r : kHealthRoutes) {
    for (const uint16_t port : {webhook_port(), extender_port()}) {
      const auto got = call(port, r);
      ASSERT_TRUE(got.has_value()) << r.path;
      EXPECT_EQ(got->status, 200) << r.path << " on " << port;
    }
  }
}

TEST_F(Listeners, TheExtenderListenerFeedsTheWebhookListenersMetrics) {
  start(host_config());
  ASSERT_EQ(call(extender_port(), kExtenderRoutes[0])->status, 200);
  const auto scrape = call(webhook_port(), {"GET", "/metrics", "", 200});
  ASSERT_TRUE(scrape.has_value());
  EXPECT_NE(
      scrape->body.find("hami_scheduler_http_requests_total{method=\"POST\",route=\"/filter\","
                        "status_class=\"2xx\"} 1\n"),
      std::string::npos)
      << scrape->body;
  EXPECT_NE(scrape->body.find("hami_scheduler_filter_total{outcome=\"error\"} 1\n"),
            std::string::npos)
      << scrape->body;
}

TEST_F(Listeners, ASharedSocketServesEveryRoute) {
  auto config = host_config();
  config.extender.shared = true;
  start(config);
  ASSERT_TRUE(host->listeners_shared());
  EXPECT_EQ(extender_port(), webhook_port());
  for (const auto* routes : {&kExtenderRoutes, &kWebhookRoutes, &kHealthRoutes}) {
    for (const Route& r : *routes) {
      const auto got = call(webhook_port(), r);
      ASSERT_TRUE(got.has_value()) << r.path;
      EXPECT_EQ(got->status, r.status) << r.method << " " << r.path << ": " << got->body;
    }
  }
}

// HAMi's chart layout (--http_bind=0.0.0.0:443, kube-scheduler calling
// https://127.0.0.1:443): one socket on every address; the extender verbs
// answer connections made to loopback only.
TEST_F(Listeners, AWildcardSharedSocketServesTheExtenderOnLoopbackOnly) {
  auto config = host_config();
  config.listen.host = "0.0.0.0";
  config.extender.shared = true;
  start(config);
  ASSERT_TRUE(host->listeners_shared());
  for (const auto* routes : {&kExtenderRoutes, &kWebhookRoutes, &kHealthRoutes}) {
    for (const Route& r : *routes) {
      const auto got = call(webhook_port(), r);
      ASSERT_TRUE(got.has_value()) << r.path;
      EXPECT_EQ(got->status, r.status) << r.method << " " << r.path << ": " << got->body;
    }
  }
  const auto ip = non_loopback_ipv4();
  if (!ip)
    GTEST_SKIP() << "this machine has no IPv4 address besides loopback";
  const auto from_network = [&](const Route& r) {
    return request(ctx.get(), webhook_port(), r.method, r.path, r.body, *ip);
  };
  for (const auto* routes : {&kWebhookRoutes, &kHealthRoutes}) {
    for (const Route& r : *routes) {
      const auto got = from_network(r);
      ASSERT_TRUE(got.has_value()) << r.path;
      EXPECT_EQ(got->status, r.status) << r.method << " " << r.path << " on " << *ip;
    }
  }
  for (const Route& r : kExtenderRoutes) {
    const auto got = from_network(r);
    ASSERT_TRUE(got.has_value()) << r.path;
    EXPECT_EQ(got->status, 404) << r.method << " " << r.path << " on " << *ip;
  }
}

TEST_F(Listeners, ShutdownStopsBoth) {
  start(host_config());
  const uint16_t webhook = webhook_port();
  const uint16_t extender = extender_port();
  EXPECT_TRUE(host->shutdown(std::chrono::milliseconds(2000)));
  EXPECT_FALSE(call(webhook, kHealthRoutes[0]).has_value());
  EXPECT_FALSE(call(extender, kHealthRoutes[0]).has_value());
}

TEST_F(Listeners, AnExtenderAddressInUseNamesTheListener) {
  start(host_config());
  auto config = host_config();
  config.extender.listen.port = webhook_port();
  try {
    app::SchedulerHost second(config, logger);
    FAIL() << "expected a bind error";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("extender listener (extender.listen): cannot listen on 127.0.0.1:" +
                             std::to_string(webhook_port()) + ": ",
                         0),
              0u)
        << what;
  }
}

TEST_F(Listeners, ATlsErrorOfTheExtenderListenersOwnSettingsNamesExtenderTls) {
  TempDir dir;
  auto config = host_config();
  config::TlsConfig extender_tls;
  extender_tls.self_signed = true;
  extender_tls.client_ca_file = dir.write("ca.pem", "not a certificate\n");
  config.extender.tls = extender_tls;
  try {
    app::SchedulerHost refused(config, logger);
    FAIL() << "expected a TLS error";
  } catch (const server::TlsError& e) {
    const std::string what = e.what();
    EXPECT_EQ(
        what.rfind("extender.tls.clientCAFile \"" + extender_tls.client_ca_file.string() + "\": ",
                   0),
        0u)
        << what;
  }
}

// Client certificates on one listener and not on the other, each way.
class ListenerClientCertificates : public Listeners {
 protected:
  void SetUp() override { pki = make_client_pki(dir); }
  SslCtxPtr client_with_certificate() const {
    ClientTlsOptions o;
    o.cert_file = pki.client_cert;
    o.key_file = pki.client_key;
    return make_client_ctx(o);
  }
  SslCtxPtr client_with_rogue_certificate() const {
    ClientTlsOptions o;
    o.cert_file = pki.rogue_cert;
    o.key_file = pki.rogue_key;
    return make_client_ctx(o);
  }
  TempDir dir;
  ClientPki pki;
};

TEST_F(ListenerClientCertificates, RequiredOnTheExtenderListenerOnly) {
  auto config = host_config();
  config::TlsConfig extender_tls;
  extender_tls.self_signed = true;
  extender_tls.client_ca_file = pki.ca;
  config.extender.tls = extender_tls;
  start(config);
  const Route filter = kExtenderRoutes[0];
  const Route healthz = kHealthRoutes[0];
  // Without a certificate, or with one of another CA: no answer.
  EXPECT_FALSE(request(ctx.get(), extender_port(), filter.method, filter.path, filter.body));
  const auto rogue = client_with_rogue_certificate();
  EXPECT_FALSE(request(rogue.get(), extender_port(), filter.method, filter.path, filter.body));
  const auto trusted = client_with_certificate();
  const auto answered =
      request(trusted.get(), extender_port(), filter.method, filter.path, filter.body);
  ASSERT_TRUE(answered.has_value());
  EXPECT_EQ(answered->status, 200);
  // The webhook listener asks for none.
  const auto webhook = request(ctx.get(), webhook_port(), healthz.method, healthz.path, "");
  ASSERT_TRUE(webhook.has_value());
  EXPECT_EQ(webhook->status, 200);
  // Two contexts: the listeners present different certificates.
  EXPECT_NE(host->server().tls().certificate_sha256,
            host->extender_server().tls().certificate_sha256);
}

TEST_F(ListenerClientCertificates, RequiredOnTheWebhookListenerOnly) {
  auto config = host_config();
  config.tls.client_ca_file = pki.ca;
  config::TlsConfig extender_tls;
  extender_tls.self_signed = true;
  config.extender.tls = extender_tls;
  start(config);
  const Route review = kWebhookRoutes[0];
  const Route filter = kExtenderRoutes[0];
  EXPECT_FALSE(request(ctx.get(), webhook_port(), review.method, review.path, review.body));
  const auto trusted = client_with_certificate();
  const auto answered =
      request(trusted.get(), webhook_port(), review.method, review.path, review.body);
  ASSERT_TRUE(answered.has_value());
  EXPECT_EQ(answered->status, 400);
  const auto extender =
      request(ctx.get(), extender_port(), filter.method, filter.path, filter.body);
  ASSERT_TRUE(extender.has_value());
  EXPECT_EQ(extender->status, 200);
}

TEST_F(ListenerClientCertificates, WithoutExtenderTlsBothListenersShareTheWebhookSettings) {
  auto config = host_config();
  config.tls.client_ca_file = pki.ca;
  start(config);
  EXPECT_EQ(host->server().tls().certificate_sha256,
            host->extender_server().tls().certificate_sha256);
  const Route filter = kExtenderRoutes[0];
  EXPECT_FALSE(request(ctx.get(), extender_port(), filter.method, filter.path, filter.body));
  const auto trusted = client_with_certificate();
  const auto answered =
      request(trusted.get(), extender_port(), filter.method, filter.path, filter.body);
  ASSERT_TRUE(answered.has_value());
  EXPECT_EQ(answered->status, 200);
}

}  // namespace
}  // namespace hami::test
