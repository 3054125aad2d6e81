// ApiClient's HTTP layer against a scripted server: exact request heads,
// replies cut mid-body, chunk boundaries inside watch lines, and a
// kept-alive connection the server closed while idle.
#include <gtest/gtest.h>

#include "kube/api_client.hpp"
#include "scripted_http_server.hpp"

namespace hami::kube {
namespace {

using namespace std::chrono_literals;
using testing::ScriptedHttpServer;
using Step = ScriptedHttpServer::Step;

ApiConfig config_for(const std::string& url) {
  ApiConfig config;
  config.server = url;
  config.origin = "test";
  config.qps = 0;
  config.request_timeout = 5s;
  return config;
}

std::string reply_200(std::string_view body, bool close_header = false) {
  return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n" + (close_header ? "Connection: close\r\n" : "") +
         "\r\n" + std::string(body);
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ApiError& e) {
    EXPECT_EQ(e.status(), 0);
    return e.message();
  }
  return "<no ApiError>";
}

TEST(HttpFraming, RequestHeadCarriesTheContract) {
  ScriptedHttpServer server([](size_t) { return Step{reply_200("{}"), false}; });
  ApiConfig config = config_for(server.url() + "/prefix/");
  config.token = std::make_shared<StaticTokenSource>("tok");
  ApiClient client(config);
  client.patch("/api/v1/nodes/n", PatchType::strategic, R"({"a":1})");
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  const std::string& head = requests[0];
  EXPECT_EQ(head.rfind("PATCH /prefix/api/v1/nodes/n HTTP/1.1\r\n", 0), 0u) << head;
  EXPECT_NE(head.find("\r\nAccept: application/json\r\n"), std::string::npos) << head;
  EXPECT_NE(head.find("\r\nUser-Agent: hami-scheduler/" HAMI_VERSION_FOR_TESTS "\r\n"),
            std::string::npos)
      << head;
  EXPECT_NE(head.find("\r\nAuthorization: Bearer tok\r\n"), std::string::npos) << head;
  EXPECT_NE(head.find("\r\nContent-Type: application/strategic-merge-patch+json\r\n"),
            std::string::npos)
      << head;
  EXPECT_NE(head.find("\r\nContent-Length: 7\r\n"), std::string::npos) << head;
  EXPECT_EQ(head.substr(head.size() - 7), R"({"a":1})");
}

TEST(HttpFraming, BasicCredentialsWhenNoToken) {
  ScriptedHttpServer server([](size_t) { return Step{reply_200("{}"), true}; });
  ApiConfig config = config_for(server.url());
  config.basic_username = "admin";
  config.basic_password = "s3cret";
  ApiClient client(config);
  client.get("/api/v1/nodes");
  ASSERT_EQ(server.requests().size(), 1u);
  EXPECT_NE(server.requests()[0].find("\r\nAuthorization: Basic YWRtaW46czNjcmV0\r\n"),
            std::string::npos);
}

TEST(HttpFraming, ChunkedReplyIsReassembled) {
  ScriptedHttpServer server([](size_t) {
    return Step{
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        "4\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\n\r\n",
        false};
  });
  ApiClient client(config_for(server.url()));
  EXPECT_EQ(client.get("/x").body, R"({"a":1})");
  EXPECT_EQ(client.get("/x").body, R"({"a":1})");
  EXPECT_EQ(server.connections(), 1u);  // kept alive and reused
}

TEST(HttpFraming, CutChunkedReplyIsAnError) {
  ScriptedHttpServer server([](size_t) {
    return Step{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", true};
  });
  ApiClient client(config_for(server.url()));
  EXPECT_EQ(message_of([&] { client.get("/x"); }),
            "GET " + server.url() + "/x: reply cut: the connection closed inside the chunked body");
}

TEST(HttpFraming, ShortContentLengthIsAnError) {
  ScriptedHttpServer server([](size_t) {
    return Step{"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n12345", true};
  });
  ApiClient client(config_for(server.url()));
  EXPECT_EQ(message_of([&] { client.get("/x"); }),
            "GET " + server.url() +
                "/x: reply cut: the connection closed with 5 bytes of the body still to come");
}

TEST(HttpFraming, IdleConnectionClosedByTheServerIsReplaced) {
  // Every reply keeps the connection alive by its headers, yet the server
  // closes it: the next GET finds the pooled connection dead.
  ScriptedHttpServer server([](size_t) { return Step{reply_200(R"({"ok":true})"), true}; });
  ApiClient client(config_for(server.url()));
  EXPECT_EQ(client.get("/x").body, R"({"ok":true})");
  EXPECT_EQ(client.get("/x").body, R"({"ok":true})");
  EXPECT_EQ(server.connections(), 2u);
  EXPECT_EQ(server.requests().size(), 2u);
}

TEST(HttpFraming, ConnectionCloseHeaderIsHonoured) {
  ScriptedHttpServer server([](size_t) { return Step{reply_200("{}", true), true}; });
  ApiClient client(config_for(server.url()));
  client.get("/x");
  client.post("/x", "{}");  // not retried blindly: it gets a fresh connection
  EXPECT_EQ(server.connections(), 2u);
  EXPECT_EQ(client.stats().requests, 2u);
}

TEST(HttpFraming, WatchLinesSpanChunkBoundaries) {
  ScriptedHttpServer server([](size_t) {
    return Step{
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        "C\r\n{\"type\":\"ADD\r\n"
        "F\r\nED\"}\n{\"type\":\"M\r\n"
        "1\r\nO\r\n"
        "B\r\nDIFIED\"}\r\n\n\r\n"
        "E\r\n{\"type\":\"LAST\"\r\n"
        "1\r\n}\r\n"
        "0\r\n\r\n",
        true};
  });
  ApiClient client(config_for(server.url()));
  std::vector<std::string> lines;
  client.watch(
      "/api/v1/pods?watch=1",
      [&](std::string_view line) {
        lines.emplace_back(line);
        return true;
      },
      std::stop_token{});
  // CR LF line ends and blank lines are dropped; a last line without its
  // newline still counts once the body ended properly.
  EXPECT_EQ(lines, (std::vector<std::string>{R"({"type":"ADDED"})", R"({"type":"MODIFIED"})",
                                             R"({"type":"LAST"})"}));
}

TEST(HttpFraming, WatchCutMidLineThrowsWithoutThePartialLine) {
  ScriptedHttpServer server([](size_t) {
    return Step{
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        "8\r\n{\"a\":1}\n\r\n"
        "4\r\n{\"b\"\r\n",
        true};
  });
  ApiClient client(config_for(server.url()));
  std::vector<std::string> lines;
  const std::string message = message_of([&] {
    client.watch(
        "/api/v1/pods?watch=1",
        [&](std::string_view line) {
          lines.emplace_back(line);
          return true;
        },
        std::stop_token{});
  });
  EXPECT_EQ(message, "watch " + server.url() +
                         "/api/v1/pods?watch=1: stream cut: the connection closed inside the "
                         "chunked body");
  EXPECT_EQ(lines, (std::vector<std::string>{R"({"a":1})"}));
}

}  // namespace
}  // namespace hami::kube
