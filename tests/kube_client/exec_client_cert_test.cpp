// Client certificates from an exec credential plugin, against the fake API
// server requiring certificates from a test CA: the plugin's certificate is
// presented (the server sees its CN), a rotated certificate reaches new
// connections after expiry and after a 401, and a certificate the client
// cannot use fails the request with a message naming the user and command.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "exec_helper.hpp"
#include "fake_apiserver.hpp"
#include "kube/api_client.hpp"
#include "kube/exec_token_source.hpp"
#include "kube/kubeconfig.hpp"
#include "test_pki.hpp"

namespace hami::kube {
namespace {

using namespace std::chrono_literals;
using hami::testing::FakeApiServer;
using hami::testing::FakeApiServerOptions;
using testing::ExecHelper;
using testing::FakeClock;
using testing::PemPair;
using testing::TestCa;

const std::chrono::system_clock::time_point kStart{std::chrono::seconds(1893456000)};
// kStart + 60 s.
constexpr const char* kExpiry = "2030-01-01T00:01:00Z";

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// A v1 ExecCredential carrying `pair` (and `token`, `expiry` when set).
std::string credential_json(const PemPair& pair, const std::string& expiry = {},
                            const std::string& token = {}) {
  std::string status = "\"clientCertificateData\":" + json_string(pair.certificate) +
                       ",\"clientKeyData\":" + json_string(pair.key);
  if (!token.empty())
    status += ",\"token\":\"" + token + "\"";
  if (!expiry.empty())
    status += ",\"expirationTimestamp\":\"" + expiry + "\"";
  return R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{)" +
         status + "}}";
}

// The plugin prints the file cred-<run>.json of its folder.
class CertPlugin {
 public:
  CertPlugin() : helper_("cat \"$dir/cred-$n.json\"") {}
  void on_run(int run, const std::string& json) {
    helper_.dir().write("cred-" + std::to_string(run) + ".json", json);
  }
  const ExecHelper& helper() const { return helper_; }

 private:
  ExecHelper helper_;
};

TEST(ExecCredentialSource, OneRunServesTheCertificateAndTheTokenView) {
  const TestCa ca;
  const PemPair alice = ca.issue_client("alice");
  const PemPair bob = ca.issue_client("bob");
  CertPlugin plugin;
  plugin.on_run(1, credential_json(alice, kExpiry));
  plugin.on_run(2, credential_json(bob, {}, "tok-2"));
  FakeClock clock(kStart);
  const auto source =
      std::make_shared<ExecCredentialSource>(plugin.helper().plugin(), clock.options());
  ExecTokenSource tokens(source);
  EXPECT_EQ(tokens.token(), "");  // a certificate only
  const auto first = source->credential();
  EXPECT_EQ(first->client_certificate_pem, alice.certificate);
  EXPECT_EQ(first->client_key_pem, alice.key);
  EXPECT_EQ(plugin.helper().runs(), 1);
  clock.advance(55s);  // within 10 s of the expiry
  EXPECT_EQ(source->credential()->client_certificate_pem, bob.certificate);
  EXPECT_EQ(tokens.token(), "tok-2");
  EXPECT_EQ(first->client_certificate_pem, alice.certificate);  // still intact
  EXPECT_EQ(plugin.helper().runs(), 2);
}

class ExecClientCertTest : public ::testing::Test {
 protected:
  ExecClientCertTest()
      : server_(FakeApiServerOptions{true, "", 100, ca_.certificate_pem()}), clock_(kStart) {}

  ApiConfig config() {
    ApiConfig c;
    c.server = server_.url();
    c.ca_pem = server_.ca_pem();
    c.origin = "test";
    c.qps = 0;
    c.request_timeout = 5s;
    c.exec_credentials =
        std::make_shared<ExecCredentialSource>(plugin_.helper().plugin(), clock_.options());
    c.token = std::make_shared<ExecTokenSource>(c.exec_credentials);
    return c;
  }

  std::string failure(ApiClient& client) {
    try {
      client.get("/api/v1/nodes");
    } catch (const ApiError& e) {
      EXPECT_EQ(e.status(), 0);
      return e.message();
    }
    return "<no ApiError>";
  }

  std::string command() const {
    return "kubeconfig /k user \"u\": exec command \"" + plugin_.helper().script().string() + "\"";
  }

  TestCa ca_;
  FakeApiServer server_;
  FakeClock clock_;
  CertPlugin plugin_;
};

TEST_F(ExecClientCertTest, TheServerRequiresAClientCertificate) {
  ApiConfig c = config();
  c.exec_credentials.reset();
  c.token.reset();
  ApiClient client(c);
  const std::string message = failure(client);
  EXPECT_EQ(message.rfind("GET " + server_.url() + "/api/v1/nodes: ", 0), 0u) << message;
  EXPECT_TRUE(server_.requests().empty());
}

TEST_F(ExecClientCertTest, PluginCertificateAuthenticates) {
  plugin_.on_run(1, credential_json(ca_.issue_client("alice")));
  ApiClient client(config());
  EXPECT_EQ(client.get("/api/v1/nodes").status, 200);
  EXPECT_EQ(client.get("/api/v1/nodes").status, 200);
  const auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].client_cn, "alice");
  EXPECT_EQ(requests[1].client_cn, "alice");
  EXPECT_EQ(requests[0].authorization, "");  // no token: the certificate alone
  EXPECT_EQ(plugin_.helper().runs(), 1);
}

TEST_F(ExecClientCertTest, TokenAndCertificateFromOneRun) {
  plugin_.on_run(1, credential_json(ca_.issue_client("alice"), {}, "tok-1"));
  ApiClient client(config());
  EXPECT_EQ(client.get("/api/v1/nodes").status, 200);
  const auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].client_cn, "alice");
  EXPECT_EQ(requests[0].authorization, "Bearer tok-1");
  EXPECT_EQ(plugin_.helper().runs(), 1);
}

TEST_F(ExecClientCertTest, AfterExpiryNewConnectionsPresentTheNewCertificate) {
  plugin_.on_run(1, credential_json(ca_.issue_client("alice"), kExpiry));
  plugin_.on_run(2, credential_json(ca_.issue_client("bob")));
  ApiClient client(config());
  EXPECT_EQ(client.get("/api/v1/nodes").status, 200);
  clock_.advance(30s);  // not yet due
  EXPECT_EQ(client.get("/api/v1/nodes").status, 200);
  clock_.advance(25s);  // within 10 s of the expiry: refreshed
  EXPECT_EQ(client.get("/api/v1/nodes").status, 200);
  EXPECT_EQ(client.get("/api/v1/nodes").status, 200);
  const auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 4u);
  EXPECT_EQ(requests[0].client_cn, "alice");
  EXPECT_EQ(requests[1].client_cn, "alice");
  EXPECT_EQ(requests[2].client_cn, "bob");
  EXPECT_EQ(requests[3].client_cn, "bob");
  EXPECT_EQ(plugin_.helper().runs(), 2);
}

TEST_F(ExecClientCertTest, UnauthorizedReRunsThePluginAndRetriesWithItsCertificate) {
  plugin_.on_run(1, credential_json(ca_.issue_client("alice")));
  plugin_.on_run(2, credential_json(ca_.issue_client("bob")));
  ApiClient client(config());
  EXPECT_EQ(client.get("/api/v1/nodes").status, 200);
  clock_.advance(1h);
  server_.fail_next("GET", "/api/v1/nodes", 401);
  EXPECT_EQ(client.get("/api/v1/nodes").status, 200);
  const auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[1].status, 401);
  EXPECT_EQ(requests[1].client_cn, "alice");
  EXPECT_EQ(requests[2].status, 200);
  EXPECT_EQ(requests[2].client_cn, "bob");
  EXPECT_EQ(plugin_.helper().runs(), 2);
  EXPECT_TRUE(clock_.sleeps().empty());
}

TEST_F(ExecClientCertTest, MismatchedKeyIsAClearError) {
  const PemPair alice = ca_.issue_client("alice");
  const PemPair bob = ca_.issue_client("bob");
  plugin_.on_run(1, credential_json(PemPair{alice.certificate, bob.key}));
  ApiClient client(config());
  const std::string message = failure(client);
  const std::string expected = command() +
                               " returned an unusable client certificate: the client key does "
                               "not match the client certificate: ";
  EXPECT_EQ(message.substr(0, expected.size()), expected) << message;
  EXPECT_GT(message.size(), expected.size());  // OpenSSL's reason follows
  EXPECT_TRUE(server_.requests().empty());
  EXPECT_EQ(plugin_.helper().runs(), 1);
}

TEST_F(ExecClientCertTest, UnparsablePemIsAClearError) {
  PemPair broken = ca_.issue_client("alice");
  broken.key = "-----BEGIN PRIVATE KEY-----\nnot base64\n-----END PRIVATE KEY-----\n";
  plugin_.on_run(1, credential_json(broken));
  ApiClient client(config());
  const std::string message = failure(client);
  const std::string expected = command() +
                               " returned an unusable client certificate: the client key is not "
                               "an unencrypted PEM private key: ";
  EXPECT_EQ(message.substr(0, expected.size()), expected) << message;
  EXPECT_TRUE(server_.requests().empty());
}

TEST_F(ExecClientCertTest, CertificateFromAnotherCaIsRefusedByTheServer) {
  const TestCa other("other-ca");
  plugin_.on_run(1, credential_json(other.issue_client("mallory")));
  ApiClient client(config());
  const std::string message = failure(client);
  EXPECT_EQ(message.rfind("GET " + server_.url() + "/api/v1/nodes: ", 0), 0u) << message;
  EXPECT_TRUE(server_.requests().empty());
}

TEST_F(ExecClientCertTest, KubeconfigExecUserPresentsThePluginCertificate) {
  plugin_.on_run(1, credential_json(ca_.issue_client("alice")));
  const ExecHelper& helper = plugin_.helper();
  helper.dir().write("ca.pem", server_.ca_pem());
  const std::string kubeconfig =
      "current-context: c\n"
      "clusters: [{name: k, cluster: {server: \"" +
      server_.url() +
      "\", certificate-authority: ca.pem}}]\n"
      "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
      "users:\n"
      "  - name: u\n"
      "    user:\n"
      "      exec:\n"
      "        apiVersion: client.authentication.k8s.io/v1\n"
      "        command: " +
      helper.script().string() +
      "\n"
      "        interactiveMode: Never\n";
  ApiConfig c = load_kubeconfig(helper.dir().write("config", kubeconfig));
  c.qps = 0;
  ApiClient client(c);
  EXPECT_EQ(client.get("/api/v1/nodes").status, 200);
  ASSERT_EQ(server_.requests().size(), 1u);
  EXPECT_EQ(server_.requests()[0].client_cn, "alice");
}

}  // namespace
}  // namespace hami::kube
