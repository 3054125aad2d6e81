// Limits of the HTTPS server against misbehaving clients: oversized bodies
// are answered (not reset), trickling clients are cut at the read timeout,
// a saturated server answers 503, oversized headers are refused; in every
// case other clients keep being served.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "k8s/json_depth.hpp"
#include "server/http_reply.hpp"
#include "test_support.hpp"

namespace hami::test {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kLimit = 16;
constexpr const char* k413Body = R"({"error":"request body exceeds the limit of 16 bytes"})";

std::shared_ptr<server::Router> echo_router() {
  auto router = std::make_shared<server::Router>();
  router->add("POST", "/echo", kLimit, [](const server::Request& req, server::Response& out) {
    out.content_type = "text/plain";
    out.body = req.body;
  });
  router->add("POST", "/big", 1u << 20, [](const server::Request& req, server::Response& out) {
    out.content_type = "text/plain";
    out.body = std::to_string(req.body.size());
  });
  router->add("GET", "/ping", 0, [](const server::Request&, server::Response& out) {
    out.content_type = "text/plain";
    out.body = "pong";
  });
  return router;
}

std::string post_header(std::size_t length) {
  return "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(length) + "\r\n\r\n";
}

// One GET /ping on a fresh connection; the status, 0 when there was no answer.
int ping(SSL_CTX* ctx, uint16_t port) {
  TlsConnection conn(ctx, port);
  if (!conn.handshake() || !conn.send("GET /ping HTTP/1.1\r\nHost: x\r\n\r\n"))
    return 0;
  const auto raw = conn.read_response();
  if (!raw)
    return 0;
  const auto r = parse_response(*raw);
  return r.body == "pong" ? r.status : -r.status;
}

class LimitsTest : public ::testing::Test {
 protected:
  void start(config::ServerConfig settings = {}) {
    ServerOptions options;
    options.settings = settings;
    srv = std::make_unique<RunningServer>(echo_router(), options);
    ctx = make_client_ctx({});
  }

  std::unique_ptr<RunningServer> srv;
  SslCtxPtr ctx;
};

// The client writes its whole (oversized) body before reading, as simple
// clients do. Unread bytes left in the server's socket at close would make
// the kernel reset the connection and lose the 413; the server drains them.
TEST_F(LimitsTest, OversizedBodySentInFullStillGetsThe413) {
  start();
  const std::string body(4u * 1024u * 1024u, 'x');
  for (int round = 0; round < 3; ++round) {
    TlsConnection conn(ctx.get(), srv->port());
    ASSERT_TRUE(conn.handshake()) << conn.error();
    ASSERT_TRUE(conn.send(post_header(body.size()) + body)) << "round " << round;
    const auto raw = conn.read_response();
    ASSERT_TRUE(raw.has_value()) << "round " << round << ": " << conn.error();
    const auto r = parse_response(*raw);
    EXPECT_EQ(r.status, 413);
    EXPECT_EQ(r.body, k413Body);
    EXPECT_EQ(r.header("connection"), "Close");
  }
  EXPECT_EQ(ping(ctx.get(), srv->port()), 200);
}

// A client that declares a large body and sends nothing gets its 413 at
// once, and the server gives up waiting for the body within the drain bound.
TEST_F(LimitsTest, DeclaredBodyNeverSentIsAnsweredAndReleasedWithinTheDrainBound) {
  config::ServerConfig settings;
  settings.max_threads = 1;
  start(settings);
  TlsConnection conn(ctx.get(), srv->port());
  ASSERT_TRUE(conn.handshake()) << conn.error();
  ASSERT_TRUE(conn.send(post_header(10u * 1024u * 1024u)));
  const auto raw = conn.read_response();
  ASSERT_TRUE(raw.has_value()) << conn.error();
  EXPECT_EQ(parse_response(*raw).status, 413);
  // With one worker, the next client is served only once the worker let go.
  const auto begin = Clock::now();
  EXPECT_EQ(ping(ctx.get(), srv->port()), 200);
  EXPECT_LT(Clock::now() - begin, server::kDrainTime + std::chrono::milliseconds(900));
  EXPECT_FALSE(conn.read_response().has_value()) << "the server closes after the drain";
}

// Sends `bytes` one at a time, `gap` apart, until the server stops taking
// them or `budget` is spent. Returns how long the server kept accepting.
Clock::duration trickle(TlsConnection& conn, const std::string& bytes, Clock::duration gap,
                        Clock::duration budget) {
  const auto begin = Clock::now();
  for (const char c : bytes) {
    if (Clock::now() - begin > budget || !conn.send(std::string(1, c)))
      break;
    std::this_thread::sleep_for(gap);
  }
  return Clock::now() - begin;
}

class SlowClientTest : public LimitsTest {
 protected:
  void SetUp() override {
    config::ServerConfig settings;
    settings.read_timeout_seconds = 1;
    settings.max_threads = 2;
    start(settings);
  }

  // Trickles `request` in a background thread, checks that other clients
  // are served meanwhile and that the trickler is cut near the deadline.
  void expect_cut(const std::string& request) {
    TlsConnection slow(ctx.get(), srv->port());
    ASSERT_TRUE(slow.handshake()) << slow.error();
    auto trickled = std::async(std::launch::async, [&] {
      // A byte every 200 ms: each read is well within the 1 s timeout.
      return trickle(slow, request, std::chrono::milliseconds(200), std::chrono::seconds(8));
    });
    for (int i = 0; i < 5; ++i) {
      EXPECT_EQ(ping(ctx.get(), srv->port()), 200) << "ping " << i;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    const auto held = trickled.get();
    // Cut at read timeout + slack (1.5 s); the client notices at its next write.
    EXPECT_LT(held, std::chrono::milliseconds(3000));
    EXPECT_GE(held, std::chrono::milliseconds(1000));
    EXPECT_EQ(srv->server().cut_connections(), 1);
    EXPECT_EQ(ping(ctx.get(), srv->port()), 200);
  }
};

TEST_F(SlowClientTest, TricklingHeaderIsCutAtTheReadTimeout) {
  std::string request = "GET /ping HTTP/1.1\r\nHost: x\r\n";
  for (int i = 0; i < 10; ++i)
    request += "X-Slow-" + std::to_string(i) + ": " + std::string(10, 'a') + "\r\n";
  expect_cut(request + "\r\n");
}

TEST_F(SlowClientTest, TricklingBodyIsCutAtTheReadTimeout) {
  TlsConnection slow(ctx.get(), srv->port());
  ASSERT_TRUE(slow.handshake()) << slow.error();
  ASSERT_TRUE(slow.send(post_header(kLimit)));
  const auto held = trickle(slow, std::string(kLimit, 'b'), std::chrono::milliseconds(200),
                            std::chrono::seconds(8));
  EXPECT_LT(held, std::chrono::milliseconds(3000));
  EXPECT_EQ(srv->server().cut_connections(), 1);
  EXPECT_EQ(ping(ctx.get(), srv->port()), 200);
}

TEST_F(SlowClientTest, TricklingHeaderDoesNotStallOtherClients) {
  std::string request = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n";
  request += "X-Pad: " + std::string(20, 'p') + "\r\n\r\nabc";
  expect_cut(request);
}

TEST_F(SlowClientTest, StalledHeaderIsAnswered408AtTheDeadline) {
  TlsConnection slow(ctx.get(), srv->port());
  ASSERT_TRUE(slow.handshake()) << slow.error();
  const auto begin = Clock::now();
  ASSERT_TRUE(slow.send("GET /ping HTTP/1.1\r\nHost: x\r\n"));
  const auto raw = slow.read_response();
  ASSERT_TRUE(raw.has_value()) << slow.error();
  const auto r = parse_response(*raw);
  EXPECT_EQ(r.status, 408);
  EXPECT_EQ(r.body, R"({"error":"timed out reading the request head"})");
  EXPECT_EQ(r.header("connection"), "Close");
  EXPECT_LT(Clock::now() - begin, std::chrono::milliseconds(2500));
  EXPECT_EQ(ping(ctx.get(), srv->port()), 200);
}

TEST_F(LimitsTest, SaturatedServerAnswers503WithRetryAfter) {
  config::ServerConfig settings;
  settings.max_threads = 1;
  settings.max_queued = 0;
  start(settings);
  // The one admitted connection stays open (keep-alive) after a request.
  auto holder = std::make_unique<TlsConnection>(ctx.get(), srv->port());
  ASSERT_TRUE(holder->handshake()) << holder->error();
  ASSERT_TRUE(holder->send("GET /ping HTTP/1.1\r\nHost: x\r\n\r\n"));
  ASSERT_TRUE(holder->read_response().has_value());

  for (int i = 0; i < 3; ++i) {
    TlsConnection refused(ctx.get(), srv->port());
    ASSERT_TRUE(refused.handshake()) << refused.error();
    ASSERT_TRUE(refused.send("GET /ping HTTP/1.1\r\nHost: x\r\n\r\n"));
    const auto raw = refused.read_response();
    ASSERT_TRUE(raw.has_value()) << refused.error();
    EXPECT_EQ(*raw, server::busy_reply());
    const auto r = parse_response(*raw);
    EXPECT_EQ(r.status_line, "HTTP/1.1 503 Service Unavailable");
    EXPECT_EQ(r.header("retry-after"), "1");
    EXPECT_EQ(r.header("connection"), "close");
    EXPECT_EQ(r.body, R"({"error":"server busy, retry later"})");
    EXPECT_FALSE(refused.read_response().has_value()) << "closed after the 503";
  }
  EXPECT_EQ(srv->server().refused_connections(), 3);

  // The admitted connection is still served, and once it leaves a new
  // client is admitted.
  ASSERT_TRUE(holder->send("GET /ping HTTP/1.1\r\nHost: x\r\n\r\n"));
  const auto again = holder->read_response();
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(parse_response(*again).body, "pong");
  holder.reset();
  int status = 0;
  const auto until = Clock::now() + std::chrono::seconds(5);
  while (status != 200 && Clock::now() < until) {
    status = ping(ctx.get(), srv->port());
    if (status != 200)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(status, 200);
}

struct HeadCase {
  std::string name;
  std::string request;
  int status;
  std::string body;
};

TEST_F(LimitsTest, OversizedOrMalformedHeadsAreRefusedAndTheServerKeepsServing) {
  start();
  std::string many_fields = "GET /ping HTTP/1.1\r\nHost: x\r\n";
  for (int i = 0; i < 101; ++i)
    many_fields += "X-F" + std::to_string(i) + ": v\r\n";
  const std::string k431 = R"({"error":"request header fields too large or too many"})";
  const std::vector<HeadCase> cases = {
      {"101 fields", many_fields + "\r\n", 431, k431},
      {"long name", "GET /ping HTTP/1.1\r\n" + std::string(300, 'n') + ": v\r\n\r\n", 431, k431},
      {"long value", "GET /ping HTTP/1.1\r\nX-V: " + std::string(9000, 'v') + "\r\n\r\n", 431,
       k431},
      {"long target", "GET /" + std::string(17000, 't') + " HTTP/1.1\r\nHost: x\r\n\r\n", 414,
       R"({"error":"request target too long or malformed"})"},
      {"garbage", "\x01\x02 nonsense\r\n\r\n", 400, R"({"error":"malformed request head"})"},
  };
  for (const auto& c : cases) {
    TlsConnection conn(ctx.get(), srv->port());
    ASSERT_TRUE(conn.handshake()) << conn.error();
    ASSERT_TRUE(conn.send(c.request)) << c.name;
    const auto raw = conn.read_response();
    ASSERT_TRUE(raw.has_value()) << c.name << ": " << conn.error();
    const auto r = parse_response(*raw);
    EXPECT_EQ(r.status, c.status) << c.name;
    EXPECT_EQ(r.body, c.body) << c.name;
    EXPECT_EQ(r.header("connection"), "Close") << c.name;
    EXPECT_EQ(ping(ctx.get(), srv->port()), 200) << "after " << c.name;
  }
}

// An answer given without reading the body (unknown route) closes the
// connection: the body must not be parsed as the next request.
TEST_F(LimitsTest, BodyOfAnUnknownRouteIsNotTakenForTheNextRequest) {
  start();
  TlsConnection conn(ctx.get(), srv->port());
  ASSERT_TRUE(conn.handshake()) << conn.error();
  const std::string smuggled = "GET /ping HTTP/1.1\r\nHost: x\r\n\r\n";
  ASSERT_TRUE(conn.send("POST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                        std::to_string(smuggled.size()) + "\r\n\r\n" + smuggled));
  const auto raw = conn.read_response();
  ASSERT_TRUE(raw.has_value()) << conn.error();
  const auto r = parse_response(*raw);
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.header("connection"), "Close");
  EXPECT_FALSE(conn.read_response().has_value()) << "no second answer";
}

TEST(JsonDepth, CountsBracketsOutsideStrings) {
  EXPECT_EQ(k8s::json_nesting_depth(""), 0u);
  EXPECT_EQ(k8s::json_nesting_depth("1"), 0u);
  EXPECT_EQ(k8s::json_nesting_depth(R"({"a":[1,{"b":[]}]})"), 4u);
  EXPECT_EQ(k8s::json_nesting_depth(R"({"a":"[[[[{{{{","b":"\"[[["})"), 1u);
  EXPECT_EQ(k8s::json_nesting_depth("]]]][["), 2u);
  // Stops counting once over the bound.
  EXPECT_EQ(k8s::json_nesting_depth(std::string(100000, '['), 10), 11u);
  // An escaped backslash does not escape the quote after it; an escaped
  // quote does not end the string.
  EXPECT_EQ(k8s::json_nesting_depth(R"({"a":"x\\"}[[)"), 2u);
  EXPECT_EQ(k8s::json_nesting_depth(R"(["\"[[", "\\\"[[", "\\"])"), 1u);
  // An unterminated string hides the rest.
  EXPECT_EQ(k8s::json_nesting_depth(R"([["[[[[)"), 2u);
}

TEST_F(LimitsTest, DeeplyNestedBodyIsRefusedBeforeTheHandler) {
  start();
  const std::string ok =
      std::string(k8s::kMaxJsonDepth, '[') + std::string(k8s::kMaxJsonDepth, ']');
  const std::string deep = std::string(100000, '[');
  for (const auto& [body, status] : {std::pair{ok, 200}, std::pair{deep, 400}}) {
    TlsConnection conn(ctx.get(), srv->port());
    ASSERT_TRUE(conn.handshake()) << conn.error();
    ASSERT_TRUE(conn.send("POST /big HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                          std::to_string(body.size()) + "\r\n\r\n" + body));
    const auto raw = conn.read_response();
    ASSERT_TRUE(raw.has_value()) << conn.error();
    const auto r = parse_response(*raw);
    EXPECT_EQ(r.status, status);
    if (status == 400) {
      EXPECT_EQ(r.body, R"({"error":"request body nests JSON deeper than 512 levels"})");
    } else {
      EXPECT_EQ(r.body, std::to_string(body.size()));
    }
  }
}

}  // namespace
}  // namespace hami::test
