// Routing, limits and timeouts of the HTTPS server, driven over real TLS
// connections with exact bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <mutex>
#include <vector>

#include "server/health_routes.hpp"
#include "server/readiness.hpp"
#include "test_support.hpp"

namespace hami::test {
namespace {

constexpr size_t kEchoLimit = 16;

// Connection options are case-insensitive tokens (RFC 9110 §7.6.1).
std::string lower(std::string s) {
  for (auto& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

class RoutingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto router = std::make_shared<server::Router>();
    server::register_health_routes(*router, readiness);
    router->add("POST", "/echo", kEchoLimit, [](const server::Request& req, server::Response& out) {
      out.content_type = "text/plain";
      out.body = req.method + " " + req.path + " " + req.content_type + " " + req.body;
    });
    router->add("PUT", "/echo", kEchoLimit,
                [](const server::Request&, server::Response& out) { out.status = 204; });
    router->add("GET", "/throws", 0, [](const server::Request&, server::Response&) {
      throw std::runtime_error("secret detail");
    });
    router->add("GET", "/custom", 0, [](const server::Request&, server::Response& out) {
      out.status = 201;
      out.body = R"({"ok":true})";
      out.headers.emplace_back("X-Test", "yes");
    });
    ServerOptions options;
    options.settings.read_timeout_seconds = 1;
    srv = std::make_unique<RunningServer>(router, options);
    ctx = make_client_ctx({});
  }

  ParsedResponse exchange(const std::string& request) {
    TlsConnection conn(ctx.get(), srv->port());
    EXPECT_TRUE(conn.handshake()) << conn.error();
    EXPECT_TRUE(conn.send(request));
    const auto raw = conn.read_response();
    EXPECT_TRUE(raw.has_value()) << conn.error();
    return raw ? parse_response(*raw) : ParsedResponse{};
  }

  server::Readiness readiness;
  std::unique_ptr<RunningServer> srv;
  SslCtxPtr ctx;
};

TEST_F(RoutingTest, HealthAndStatusAnswer200WithEmptyBody) {
  for (const std::string path : {"/healthz", "/status", "/readyz"}) {
    const auto r = exchange("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_EQ(r.status, 200) << path;
    EXPECT_EQ(r.body, "") << path;
    EXPECT_EQ(r.header("content-length"), "0") << path;
  }
}

TEST_F(RoutingTest, UnknownPathIs404WithJsonError) {
  const auto r = exchange("GET /nope HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.status_line, "HTTP/1.1 404 Not Found");
  EXPECT_EQ(r.header("content-type"), "application/json");
  EXPECT_EQ(r.body, R"({"error":"not found: /nope"})");
}

TEST_F(RoutingTest, PathMatchIsExact) {
  EXPECT_EQ(exchange("GET /healthz/ HTTP/1.1\r\nHost: x\r\n\r\n").status, 404);
  EXPECT_EQ(exchange("GET /HEALTHZ HTTP/1.1\r\nHost: x\r\n\r\n").status, 404);
}

TEST_F(RoutingTest, WrongMethodIs405WithAllow) {
  const auto r = exchange("DELETE /echo HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.header("allow"), "POST, PUT");
  EXPECT_EQ(r.body, R"({"error":"method DELETE not allowed on /echo"})");
  const auto h = exchange("POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
  EXPECT_EQ(h.status, 405);
  EXPECT_EQ(h.header("allow"), "GET");
}

TEST_F(RoutingTest, HeadAnswerHasNoBody) {
  // curl -I stops after the headers; --max-time bounds a server that would
  // wrongly send (or promise and withhold) a body on the same connection.
  const auto r = run_command("curl -sS -k -I --max-time 10 " + shell_quote(srv->url("/healthz")) +
                             " " + shell_quote(srv->url("/healthz")) + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.rfind("HTTP/1.1 405 Method Not Allowed\r\n", 0), 0u) << r.output;
  EXPECT_NE(r.output.find("Allow: GET\r\n"), std::string::npos) << r.output;
  // Two HEAD requests on one connection both answered: no stray body bytes.
  EXPECT_NE(r.output.find("HTTP/1.1 405", 10), std::string::npos) << r.output;
}

TEST_F(RoutingTest, QueryStringIsIgnored) {
  const auto r = exchange(
      "POST /echo?timeout=10s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      "Content-Length: 2\r\n\r\n{}");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "POST /echo application/json {}");
  EXPECT_EQ(exchange("GET /healthz?x=1#frag HTTP/1.1\r\nHost: x\r\n\r\n").status, 200);
}

TEST_F(RoutingTest, BodyAtTheLimitIsAccepted) {
  const std::string body(kEchoLimit, 'a');
  const auto r =
      exchange("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(body.size()) +
               "\r\n\r\n" + body);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "POST /echo  " + body);
}

TEST_F(RoutingTest, DeclaredLengthOverTheLimitIs413BeforeTheBodyIsSent) {
  // Only the header is sent: the answer must come without the body.
  const auto r = exchange("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 17\r\n\r\n");
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(r.body, R"({"error":"request body exceeds the limit of 16 bytes"})");
  EXPECT_EQ(lower(r.header("connection")), "close");
}

TEST_F(RoutingTest, ChunkedBodyOverTheLimitIs413) {
  const auto r = exchange(
      "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
      "a\r\n0123456789\r\na\r\n0123456789\r\n0\r\n\r\n");
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(r.body, R"({"error":"request body exceeds the limit of 16 bytes"})");
  EXPECT_EQ(lower(r.header("connection")), "close");
}

TEST_F(RoutingTest, ChunkedBodyWithinTheLimitIsRead) {
  const auto r = exchange(
      "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "POST /echo  hello world");
}

TEST_F(RoutingTest, SlowBodyIs408AfterTheReadTimeout) {
  // Two of ten promised bytes, then silence: the 1 s read timeout answers.
  const auto r = exchange("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab");
  EXPECT_EQ(r.status, 408);
  EXPECT_EQ(r.body, R"({"error":"timed out reading the request body"})");
}

TEST_F(RoutingTest, HandlerExceptionIs500WithoutDetails) {
  const auto r = exchange("GET /throws HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body, R"({"error":"internal error"})");
}

TEST_F(RoutingTest, HandlerStatusHeadersAndBodyAreSent) {
  const auto r = exchange("GET /custom HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(r.status, 201);
  EXPECT_EQ(r.header("x-test"), "yes");
  EXPECT_EQ(r.header("content-type"), "application/json");
  EXPECT_EQ(r.body, R"({"ok":true})");
}

TEST_F(RoutingTest, ReadyzIs503NamingTheUnmetCondition) {
  readiness.add("plugins", "loading");
  readiness.add("cluster", "not synced");
  readiness.set("cluster", true);
  auto r = exchange("GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.body, R"({"error":"not ready: plugins: loading","unmet":{"plugins":"loading"}})");
  readiness.set("plugins", true);
  r = exchange("GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "");
}

TEST(RouterObserver, SeesRouteMethodAndStatusOfEveryRequest) {
  auto router = std::make_shared<server::Router>();
  router->add("POST", "/echo", kEchoLimit,
              [](const server::Request&, server::Response& out) { out.status = 201; });
  std::mutex mutex;
  std::vector<std::string> seen;
  router->set_observer([&](std::string_view route, std::string_view method, int status,
                           std::chrono::nanoseconds elapsed) {
    const std::lock_guard lock(mutex);
    seen.push_back(std::string(route) + " " + std::string(method) + " " + std::to_string(status) +
                   (elapsed.count() > 0 ? " timed" : " untimed"));
  });
  RunningServer srv(router);
  const auto ctx = make_client_ctx({});
  for (const std::string request :
       {"POST /echo?x=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
        "GET /echo HTTP/1.1\r\nHost: x\r\n\r\n", "GET /other HTTP/1.1\r\nHost: x\r\n\r\n",
        "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 99\r\n\r\n"}) {
    TlsConnection conn(ctx.get(), srv.port());
    ASSERT_TRUE(conn.handshake()) << conn.error();
    ASSERT_TRUE(conn.send(request));
    ASSERT_TRUE(conn.read_response().has_value()) << conn.error();
  }
  // Observers run after the response is sent, so compare without order.
  const std::lock_guard lock(mutex);
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<std::string>{" GET 404 timed", "/echo GET 405 timed",
                                            "/echo POST 201 timed", "/echo POST 413 timed"}));
}

TEST(Router, DuplicateRouteIsRejected) {
  server::Router router;
  router.add("GET", "/a", 0, [](const server::Request&, server::Response&) {});
  EXPECT_THROW(router.add("GET", "/a", 0, [](const server::Request&, server::Response&) {}),
               std::invalid_argument);
  router.add("POST", "/a", 0, [](const server::Request&, server::Response&) {});
  EXPECT_EQ(router.allowed_methods("/a"), "GET, POST");
  EXPECT_EQ(router.allowed_methods("/b"), "");
}

TEST(Router, PathOfStripsQueryAndFragment) {
  EXPECT_EQ(server::path_of("/filter?timeout=10s"), "/filter");
  EXPECT_EQ(server::path_of("/a#b"), "/a");
  EXPECT_EQ(server::path_of("/a"), "/a");
}

TEST(Readiness, ConditionsMustBeRegisteredOnce) {
  server::Readiness r;
  EXPECT_TRUE(r.ready());
  r.add("plugins");
  EXPECT_FALSE(r.ready());
  EXPECT_THROW(r.add("plugins"), std::invalid_argument);
  EXPECT_THROW(r.set("cluster", true), std::invalid_argument);
  r.set("plugins", true, "3 loaded");
  EXPECT_TRUE(r.ready());
  EXPECT_TRUE(r.unmet().empty());
}

}  // namespace
}  // namespace hami::test
