// Connection handling of the HTTPS server: keep-alive reuse, many
// concurrent clients, graceful shutdown with a request in flight.
#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPSClientSession.h>
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <future>
#include <latch>
#include <sstream>
#include <thread>

#include "server/health_routes.hpp"
#include "server/readiness.hpp"
#include "test_support.hpp"

namespace hami::test {
namespace {

constexpr auto kBound = std::chrono::seconds(20);

// A client context trusting exactly the server's (generated) certificate.
Poco::Net::Context::Ptr trusting_context(const TempDir& dir, RunningServer& srv) {
  const auto ca = dir.write("server.pem", srv.server().tls().certificate_pem);
  return Poco::makeAuto<Poco::Net::Context>(Poco::Net::Context::TLS_CLIENT_USE, ca.string(),
                                            Poco::Net::Context::VERIFY_RELAXED);
}

struct Reply {
  int status = 0;
  std::string body;
  bool keep_alive = false;
};

Reply get(Poco::Net::HTTPSClientSession& session, const std::string& path) {
  Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, path,
                                 Poco::Net::HTTPMessage::HTTP_1_1);
  request.setKeepAlive(true);
  session.sendRequest(request);
  Poco::Net::HTTPResponse response;
  std::istream& in = session.receiveResponse(response);
  std::ostringstream body;
  body << in.rdbuf();
  return {static_cast<int>(response.getStatus()), body.str(), response.getKeepAlive()};
}

// True when a plain TCP connect to the port is refused.
bool connect_refused(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool refused = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0;
  ::close(fd);
  return refused;
}

class LifecycleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto router = std::make_shared<server::Router>();
    server::register_health_routes(*router, readiness);
    router->add("GET", "/peer", 0, [](const server::Request& req, server::Response& out) {
      out.content_type = "text/plain";
      out.body = req.peer;
    });
    router->add("GET", "/block", 0, [this](const server::Request&, server::Response& out) {
      entered.set_value();
      const bool released = release.get_future().wait_for(kBound) == std::future_status::ready;
      out.content_type = "text/plain";
      out.body = released ? "done" : "never released";
    });
    srv = std::make_unique<RunningServer>(router);
    ctx = trusting_context(dir, *srv);
  }

  server::Readiness readiness;
  TempDir dir;
  std::promise<void> entered;
  std::promise<void> release;
  std::unique_ptr<RunningServer> srv;
  Poco::Net::Context::Ptr ctx;
};

TEST_F(LifecycleTest, KeepAliveReusesOneConnection) {
  Poco::Net::HTTPSClientSession session("127.0.0.1", srv->port(), ctx);
  session.setTimeout(Poco::Timespan(10, 0));
  session.setKeepAlive(true);
  const Reply first = get(session, "/peer");
  const Reply second = get(session, "/peer");
  EXPECT_EQ(first.status, 200);
  EXPECT_TRUE(first.keep_alive);
  EXPECT_EQ(second.status, 200);
  EXPECT_FALSE(first.body.empty());
  EXPECT_EQ(first.body, second.body);  // same client port: same connection
  EXPECT_EQ(srv->server().total_connections(), 1);
}

TEST_F(LifecycleTest, FiftyConcurrentClientsAllSucceed) {
  constexpr int kClients = 50;
  std::latch start(kClients);
  std::atomic<int> ok{0};
  std::vector<std::thread> clients;
  clients.reserve(kClients);
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&] {
      start.arrive_and_wait();
      try {
        Poco::Net::HTTPSClientSession session("127.0.0.1", srv->port(), ctx);
        session.setTimeout(Poco::Timespan(20, 0));
        const Reply r = get(session, "/healthz");
        if (r.status == 200 && r.body.empty())
          ++ok;
      } catch (const Poco::Exception&) {
        // counted as a failure by the assertion below
      }
    });
  }
  for (auto& t : clients)
    t.join();
  EXPECT_EQ(ok.load(), kClients);
  EXPECT_EQ(srv->server().total_connections(), kClients);
}

TEST_F(LifecycleTest, GracefulShutdownFinishesTheInFlightRequest) {
  auto client = std::async(std::launch::async, [this] {
    Poco::Net::HTTPSClientSession session("127.0.0.1", srv->port(), ctx);
    session.setTimeout(Poco::Timespan(30, 0));
    return get(session, "/block");
  });
  ASSERT_EQ(entered.get_future().wait_for(kBound), std::future_status::ready);
  EXPECT_EQ(srv->server().in_flight(), 1);

  auto stopped = std::async(std::launch::async,
                            [this] { return srv->server().shutdown(std::chrono::seconds(20)); });
  // New connections are refused once shutdown has begun.
  const auto deadline = std::chrono::steady_clock::now() + kBound;
  bool refused = false;
  while (!refused && std::chrono::steady_clock::now() < deadline) {
    refused = connect_refused(srv->port());
    if (!refused)
      std::this_thread::yield();
  }
  EXPECT_TRUE(refused);
  // Shutdown waits for the request it has not finished.
  EXPECT_EQ(stopped.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout);

  release.set_value();
  ASSERT_EQ(stopped.wait_for(kBound), std::future_status::ready);
  EXPECT_TRUE(stopped.get());
  ASSERT_EQ(client.wait_for(kBound), std::future_status::ready);
  const Reply r = client.get();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "done");
  EXPECT_FALSE(r.keep_alive);  // draining servers close after the response
}

TEST_F(LifecycleTest, ShutdownGracePeriodIsBounded) {
  auto client = std::async(std::launch::async, [this] {
    try {
      Poco::Net::HTTPSClientSession session("127.0.0.1", srv->port(), ctx);
      session.setTimeout(Poco::Timespan(30, 0));
      return get(session, "/block").status;
    } catch (const Poco::Exception&) {
      return -1;
    }
  });
  ASSERT_EQ(entered.get_future().wait_for(kBound), std::future_status::ready);
  // The request is not released in time: shutdown reports it.
  EXPECT_FALSE(srv->server().shutdown(std::chrono::milliseconds(100)));
  release.set_value();
  ASSERT_EQ(client.wait_for(kBound), std::future_status::ready);
  EXPECT_NE(client.get(), 200);  // the connection was aborted
}

TEST_F(LifecycleTest, IdleKeepAliveConnectionDoesNotDelayShutdown) {
  Poco::Net::HTTPSClientSession session("127.0.0.1", srv->port(), ctx);
  session.setTimeout(Poco::Timespan(10, 0));
  ASSERT_EQ(get(session, "/healthz").status, 200);
  const auto begin = std::chrono::steady_clock::now();
  EXPECT_TRUE(srv->server().shutdown(std::chrono::seconds(20)));
  // Far below the 15 s keep-alive timeout the idle connection would hold.
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(5));
  EXPECT_TRUE(connect_refused(srv->port()));
}

// SO_REUSEPORT would let a second process listen on the same port and take
// part of the traffic; a port that is in use must be an error at start.
TEST_F(LifecycleTest, SecondServerOnTheSamePortIsRefused) {
  config::ListenAddress listen;
  listen.host = "127.0.0.1";
  listen.port = srv->port();
  const log::Logger quiet{log::Level::error};
  ServerOptions options;
  try {
    server::HttpsServer second(std::make_shared<server::Router>(),
                               server::make_server_tls(options.tls), listen, options.settings,
                               quiet);
    FAIL() << "a second server bound port " << srv->port();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(
        std::string(e.what()).find("cannot listen on 127.0.0.1:" + std::to_string(srv->port())),
        std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace hami::test
