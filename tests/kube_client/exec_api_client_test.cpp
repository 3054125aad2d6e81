// An exec credential plugin behind the ApiClient, against the fake API
// server: its token in the Authorization header, a re-run after a 401, a
// failing plugin failing the request before anything is sent, and a
// kubeconfig exec user end to end over TLS.
#include <gtest/gtest.h>

#include <fstream>

#include "exec_helper.hpp"
#include "fake_apiserver.hpp"
#include "kube/api_client.hpp"
#include "kube/exec_token_source.hpp"
#include "kube/kubeconfig.hpp"

namespace hami::kube {
namespace {

using namespace std::chrono_literals;
using hami::testing::FakeApiServer;
using hami::testing::FakeApiServerOptions;
using testing::ExecHelper;
using testing::FakeClock;
using testing::print_token;

const std::chrono::system_clock::time_point kStart{std::chrono::seconds(1893456000)};

std::string node_json(const std::string& name) {
  return R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + name + R"("},"spec":{}})";
}

ApiConfig config_with(const FakeApiServer& server, std::shared_ptr<TokenSource> token) {
  ApiConfig config;
  config.server = server.url();
  config.origin = "test";
  config.token = std::move(token);
  config.qps = 0;
  config.request_timeout = 5s;
  return config;
}

TEST(ExecApiClient, TokenGoesInTheAuthorizationHeader) {
  FakeApiServer server(FakeApiServerOptions{false, "tok-1", 100, {}});
  server.apply(node_json("gpu-1"));
  ExecHelper helper(print_token());
  FakeClock clock(kStart);
  ApiClient client(
      config_with(server, std::make_shared<ExecTokenSource>(helper.plugin(), clock.options())));
  EXPECT_EQ(client.get("/api/v1/nodes/gpu-1").status, 200);
  EXPECT_EQ(client.get("/api/v1/nodes/gpu-1").status, 200);
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].authorization, "Bearer tok-1");
  EXPECT_EQ(requests[1].authorization, "Bearer tok-1");
  EXPECT_EQ(helper.runs(), 1);
}

TEST(ExecApiClient, UnauthorizedReRunsThePlugin) {
  FakeApiServer server(FakeApiServerOptions{false, "tok-1", 100, {}});
  server.apply(node_json("gpu-1"));
  ExecHelper helper(print_token());
  FakeClock clock(kStart);
  ApiClient client(
      config_with(server, std::make_shared<ExecTokenSource>(helper.plugin(), clock.options())));
  EXPECT_EQ(client.get("/api/v1/nodes/gpu-1").status, 200);
  clock.advance(1h);
  server.set_token("tok-2");  // the old token was revoked
  server.clear_requests();
  EXPECT_EQ(client.get("/api/v1/nodes/gpu-1").status, 200);
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].status, 401);
  EXPECT_EQ(requests[0].authorization, "Bearer tok-1");
  EXPECT_EQ(requests[1].status, 200);
  EXPECT_EQ(requests[1].authorization, "Bearer tok-2");
  EXPECT_EQ(helper.runs(), 2);
  EXPECT_TRUE(clock.sleeps().empty());
}

TEST(ExecApiClient, FailingPluginFailsTheRequestWithItsError) {
  FakeApiServer server(FakeApiServerOptions{false, "tok-1", 100, {}});
  ExecHelper helper("echo 'aws: token expired, run aws sso login' >&2\nexit 255");
  FakeClock clock(kStart);
  ApiClient client(
      config_with(server, std::make_shared<ExecTokenSource>(helper.plugin(), clock.options())));
  try {
    client.get("/api/v1/nodes");
    ADD_FAILURE() << "expected ApiError";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.status(), 0);
    EXPECT_EQ(std::string(e.what()), "kubeconfig /k user \"u\": exec command \"" +
                                         helper.script().string() +
                                         "\" exited with code 255 (stderr: aws: token expired, "
                                         "run aws sso login)");
  }
  EXPECT_TRUE(server.requests().empty());
  // A watch fails the same way.
  EXPECT_THROW(client.watch("/api/v1/nodes?watch=1", [](std::string_view) { return true; }, {}),
               ApiError);
  EXPECT_TRUE(server.requests().empty());
}

TEST(ExecApiClient, KubeconfigExecUserOverTls) {
  FakeApiServer server(FakeApiServerOptions{true, "tok-1", 100, {}});
  server.apply(node_json("gpu-1"));
  // The command is relative to the kubeconfig's folder.
  ExecHelper helper("printf '%s' \"$KUBERNETES_EXEC_INFO\" > \"$dir/info\"\n" + print_token(),
                    "bin/helper.sh");
  helper.dir().write("ca.pem", server.ca_pem());
  const std::string kubeconfig =
      "current-context: c\n"
      "clusters: [{name: k, cluster: {server: \"" +
      server.url() +
      "\", certificate-authority: ca.pem}}]\n"
      "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
      "users:\n"
      "  - name: u\n"
      "    user:\n"
      "      exec:\n"
      "        apiVersion: client.authentication.k8s.io/v1\n"
      "        command: ./bin/helper.sh\n"
      "        interactiveMode: Never\n"
      "        provideClusterInfo: true\n";
  const auto file = helper.dir().write("config", kubeconfig);
  ApiConfig config = load_kubeconfig(file);
  config.qps = 0;
  ApiClient client(config);
  EXPECT_EQ(client.get("/api/v1/nodes/gpu-1").status, 200);
  ASSERT_EQ(server.requests().size(), 1u);
  EXPECT_EQ(server.requests()[0].authorization, "Bearer tok-1");
  const std::string info = helper.file("info");
  EXPECT_NE(info.find("\"server\":\"" + server.url() + "\""), std::string::npos) << info;
  EXPECT_NE(info.find("\"certificate-authority-data\":\""), std::string::npos) << info;
}

}  // namespace
}  // namespace hami::kube
