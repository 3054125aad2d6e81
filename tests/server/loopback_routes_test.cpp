// A server on a wildcard address with a loopback router: connections made
// to a loopback address (what only this machine's processes reach) get the
// loopback router, connections made to any other address of the machine
// the main one. This is how one socket on 0.0.0.0:443 keeps the extender
// verbs for the kube-scheduler in the same pod (HAMi's chart layout).
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace hami::test {
namespace {

std::shared_ptr<server::Router> answering(const std::string& who) {
  auto router = std::make_shared<server::Router>();
  router->add("GET", "/who", 0, [who](const server::Request&, server::Response& out) {
    out.content_type = "text/plain";
    out.body = who;
  });
  return router;
}

class LoopbackRoutes : public ::testing::Test {
 protected:
  void start(std::shared_ptr<const server::Router> loopback) {
    config::ListenAddress any;
    any.host = "0.0.0.0";
    any.port = 0;
    config::TlsConfig tls;
    tls.self_signed = true;
    srv = std::make_unique<server::HttpsServer>(answering("network"), server::make_server_tls(tls),
                                                any, config::ServerConfig{}, logger,
                                                std::move(loopback));
    srv->start();
  }

  // The body of GET /who over a connection to `ipv4`, or the status when not 200.
  std::string who(const std::string& ipv4) {
    TlsConnection conn(ctx.get(), srv->port(), ipv4);
    if (!conn.handshake())
      return "handshake failed: " + conn.error();
    if (!conn.send("GET /who HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
      return "send failed";
    const auto raw = conn.read_response();
    if (!raw)
      return "no answer";
    const ParsedResponse r = parse_response(*raw);
    return r.status == 200 ? r.body : std::to_string(r.status);
  }

  log::Logger logger{log::Level::error};
  SslCtxPtr ctx = make_client_ctx({});
  std::unique_ptr<server::HttpsServer> srv;
};

TEST_F(LoopbackRoutes, LoopbackConnectionsGetTheLoopbackRouter) {
  start(answering("loopback"));
  EXPECT_EQ(who("127.0.0.1"), "loopback");
  EXPECT_EQ(who("127.0.0.2"), "loopback");  // all of 127.0.0.0/8
  const auto ip = non_loopback_ipv4();
  if (!ip)
    GTEST_SKIP() << "this machine has no IPv4 address besides loopback";
  EXPECT_EQ(who(*ip), "network") << *ip;
}

TEST_F(LoopbackRoutes, WithoutOneEveryConnectionGetsTheRouter) {
  start(nullptr);
  EXPECT_EQ(who("127.0.0.1"), "network");
  if (const auto ip = non_loopback_ipv4()) {
    EXPECT_EQ(who(*ip), "network") << *ip;
  }
}

TEST_F(LoopbackRoutes, ARouteOnlyTheLoopbackRouterHasIs404Elsewhere) {
  auto loopback = answering("loopback");
  loopback->add("POST", "/filter", 16,
                [](const server::Request&, server::Response& out) { out.body = "{}"; });
  start(loopback);
  const auto status_of = [this](const std::string& ipv4) {
    TlsConnection conn(ctx.get(), srv->port(), ipv4);
    EXPECT_TRUE(conn.handshake()) << conn.error();
    EXPECT_TRUE(
        conn.send("POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
                  "Connection: close\r\n\r\n{}"));
    const auto raw = conn.read_response();
    return raw ? parse_response(*raw).status : -1;
  };
  EXPECT_EQ(status_of("127.0.0.1"), 200);
  const auto ip = non_loopback_ipv4();
  if (!ip)
    GTEST_SKIP() << "this machine has no IPv4 address besides loopback";
  EXPECT_EQ(status_of(*ip), 404);
}

}  // namespace
}  // namespace hami::test
