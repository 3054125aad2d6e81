// ApiClient over HTTPS against the fake API server's self-signed identity:
// verification on by default, the configured CA trusted, a wrong CA or
// name refused with a clear message, client certificates from PEM.
#include <gtest/gtest.h>
#include <openssl/pem.h>

#include <atomic>
#include <sstream>
#include <stop_token>
#include <thread>
#include <vector>

#include "fake_apiserver.hpp"
#include "kube/api_client.hpp"
#include "log/logger.hpp"
#include "server/openssl_handles.hpp"
#include "server/self_signed.hpp"

namespace hami::kube {
namespace {

using namespace std::chrono_literals;
using hami::testing::FakeApiServer;
using hami::testing::FakeApiServerOptions;

struct PemIdentity {
  std::string certificate;
  std::string key;
};

PemIdentity other_identity() {
  const server::SelfSignedIdentity id = server::generate_self_signed();
  PemIdentity out;
  out.certificate = server::certificate_pem(id.certificate.get());
  server::BioPtr bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_PrivateKey(bio.get(), id.key.get(), nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  out.key.assign(data, static_cast<size_t>(size));
  return out;
}

class ApiTlsTest : public ::testing::Test {
 protected:
  ApiTlsTest() : server_(FakeApiServerOptions{true, "", 10000, {}}) {}

  ApiConfig config() const {
    ApiConfig c;
    c.server = server_.url();
    c.ca_pem = server_.ca_pem();
    c.origin = "tls-test";
    c.qps = 0;
    c.request_timeout = 5s;
    return c;
  }

  static std::string failure(ApiConfig c) {
    ApiClient client(std::move(c), nullptr, [](std::chrono::milliseconds) {});
    try {
      client.get("/api/v1/nodes");
    } catch (const ApiError& e) {
      EXPECT_EQ(e.status(), 0);
      return e.message();
    }
    return "<no ApiError>";
  }

  FakeApiServer server_;
};

TEST_F(ApiTlsTest, TrustsTheConfiguredCa) {
  ASSERT_EQ(server_.url().rfind("https://127.0.0.1:", 0), 0u);
  ApiClient client(config());
  EXPECT_EQ(client.get("/api/v1/nodes").status, 200);
  EXPECT_EQ(client.get("/api/v1/nodes").status, 200);  // a kept-alive TLS session
}

TEST_F(ApiTlsTest, WrongCaFailsClearly) {
  ApiConfig c = config();
  c.ca_pem = other_identity().certificate;
  const std::string message = failure(c);
  EXPECT_EQ(message.rfind("GET " + server_.url() + "/api/v1/nodes: TLS failure: ", 0), 0u)
      << message;
  EXPECT_NE(message.find("certificate verify failed"), std::string::npos) << message;
  EXPECT_NE(message.find("(the server certificate is not signed by the configured CA or does not "
                         "name \"127.0.0.1\")"),
            std::string::npos)
      << message;
}

TEST_F(ApiTlsTest, SystemStoreDoesNotTrustASelfSignedServer) {
  ApiConfig c = config();
  c.ca_pem.clear();
  EXPECT_NE(failure(c).find("certificate verify failed"), std::string::npos);
}

TEST_F(ApiTlsTest, ServerNameOverrideIsVerified) {
  ApiConfig wrong = config();
  wrong.tls_server_name = "kubernetes.default.svc";
  const std::string message = failure(wrong);
  EXPECT_NE(message.find("certificate verify failed"), std::string::npos) << message;
  EXPECT_NE(message.find("does not name \"kubernetes.default.svc\""), std::string::npos);

  ApiConfig right = config();
  right.tls_server_name = "localhost";  // a SAN of the fake server's certificate
  ApiClient client(right);
  EXPECT_EQ(client.get("/api/v1/nodes").status, 200);
}

TEST_F(ApiTlsTest, InsecureSkipVerifyAcceptsAnyCertificate) {
  ApiConfig c = config();
  c.ca_pem = other_identity().certificate;
  c.insecure_skip_verify = true;
  ApiClient client(c);
  EXPECT_EQ(client.get("/api/v1/nodes").status, 200);
}

TEST_F(ApiTlsTest, InsecureSkipVerifyIsLoggedAsAWarning) {
  std::ostringstream out;
  const log::Logger logger(log::Level::info, log::Format::text, &out);
  ApiConfig c = config();
  c.insecure_skip_verify = true;
  ApiClient client(c, &logger);
  EXPECT_NE(out.str().find("kubernetes API server certificate is not verified"), std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("origin=tls-test"), std::string::npos) << out.str();
  std::ostringstream quiet;
  const log::Logger quiet_logger(log::Level::info, log::Format::text, &quiet);
  ApiClient verified(config(), &quiet_logger);
  EXPECT_EQ(quiet.str(), "");
}

TEST_F(ApiTlsTest, ClientCertificateFromPem) {
  const PemIdentity id = other_identity();
  ApiConfig c = config();
  c.client_cert_pem = id.certificate;
  c.client_key_pem = id.key;
  ApiClient client(c);
  EXPECT_EQ(client.get("/api/v1/nodes").status, 200);
}

TEST_F(ApiTlsTest, WatchOverTlsDeliversLinesAndStopsPromptly) {
  const std::string rv =
      server_.apply(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n0"},"spec":{}})");
  ApiClient client(config());
  std::stop_source stop;
  std::vector<std::string> lines;  // written by the watcher, read after join
  std::atomic<int> arrived{0};
  std::atomic<bool> threw{false};
  std::thread watcher([&] {
    try {
      client.watch(
          "/api/v1/nodes?watch=1&resourceVersion=" + rv,
          [&](std::string_view line) {
            lines.emplace_back(line);
            ++arrived;
            return true;
          },
          stop.get_token());
    } catch (...) {
      threw = true;
    }
  });
  // No ASSERT before the join: the watcher thread must be joined.
  EXPECT_TRUE(server_.wait_open_watches(1, 5s));
  server_.apply(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"spec":{}})");
  for (int i = 0; i < 1000 && arrived.load() < 1; ++i)
    std::this_thread::sleep_for(5ms);
  EXPECT_EQ(arrived.load(), 1) << "the event never arrived";
  const auto start = std::chrono::steady_clock::now();
  stop.request_stop();
  watcher.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  EXPECT_FALSE(threw.load());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find(R"("name":"n1")"), std::string::npos) << lines[0];
}

TEST_F(ApiTlsTest, UnusablePemIsAConfigError) {
  ApiConfig bad_ca = config();
  bad_ca.ca_pem = "not a certificate\n";
  try {
    ApiClient client(bad_ca);
    FAIL() << "expected ApiConfigError";
  } catch (const ApiConfigError& e) {
    EXPECT_STREQ(e.what(), "tls-test: the CA data holds no PEM certificate");
  }
  ApiConfig mismatch = config();
  mismatch.client_cert_pem = other_identity().certificate;
  mismatch.client_key_pem = other_identity().key;
  try {
    ApiClient client(mismatch);
    FAIL() << "expected ApiConfigError";
  } catch (const ApiConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(
                  "tls-test: the client key does not match the client certificate: ", 0),
              0u)
        << e.what();
  }
  ApiConfig no_key = config();
  no_key.client_cert_pem = other_identity().certificate;
  no_key.client_key_pem = "garbage";
  EXPECT_THROW(ApiClient client(no_key), ApiConfigError);
}

}  // namespace
}  // namespace hami::kube
