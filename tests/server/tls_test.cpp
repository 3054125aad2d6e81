// TLS behaviour of the HTTPS server over loopback with real clients: the raw
// OpenSSL client, Poco's HTTPSClientSession and the system curl binary.
#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPSClientSession.h>
#include <gtest/gtest.h>
#include <openssl/ssl.h>

#include <sstream>

#include "server/health_routes.hpp"
#include "server/readiness.hpp"
#include "test_support.hpp"

namespace hami::test {
namespace {

std::shared_ptr<server::Router> health_router(const server::Readiness& readiness) {
  auto router = std::make_shared<server::Router>();
  server::register_health_routes(*router, readiness);
  return router;
}

// Connects without verification and returns the certificate the server
// presents, as PEM.
std::string fetch_server_certificate(uint16_t port) {
  const auto ctx = make_client_ctx({});
  TlsConnection conn(ctx.get(), port);
  if (!conn.handshake())
    return {};
  return conn.peer_certificate_pem();
}

std::pair<int, std::string> poco_get(const Poco::Net::Context::Ptr& ctx, uint16_t port,
                                     const std::string& path) {
  Poco::Net::HTTPSClientSession session("127.0.0.1", port, ctx);
  session.setTimeout(Poco::Timespan(10, 0));
  Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, path,
                                 Poco::Net::HTTPMessage::HTTP_1_1);
  session.sendRequest(request);
  Poco::Net::HTTPResponse response;
  std::istream& in = session.receiveResponse(response);
  std::ostringstream body;
  body << in.rdbuf();
  return {static_cast<int>(response.getStatus()), body.str()};
}

class TlsTest : public ::testing::Test {
 protected:
  server::Readiness readiness;
  TempDir dir;
};

TEST_F(TlsTest, GeneratedCertificateVerifiesWithPocoAndCurl) {
  RunningServer srv(health_router(readiness));
  const std::string pem = fetch_server_certificate(srv.port());
  ASSERT_FALSE(pem.empty());
  EXPECT_EQ(pem, srv.server().tls().certificate_pem);
  const auto ca = dir.write("server.pem", pem);

  auto ctx = Poco::makeAuto<Poco::Net::Context>(Poco::Net::Context::TLS_CLIENT_USE, ca.string(),
                                                Poco::Net::Context::VERIFY_RELAXED);
  const auto [status, body] = poco_get(ctx, srv.port(), "/healthz");
  EXPECT_EQ(status, 200);
  EXPECT_EQ(body, "");

  const auto curl = run_command("curl -sS --max-time 10 --cacert " + shell_quote(ca.string()) +
                                " -o /dev/null -w '%{http_code} %{ssl_verify_result}' " +
                                shell_quote(srv.url("/healthz")) + " 2>&1");
  EXPECT_EQ(curl.exit_code, 0) << curl.output;
  EXPECT_EQ(curl.output, "200 0");
}

TEST_F(TlsTest, CurlWithoutTheCertificateRefusesTheServer) {
  RunningServer srv(health_router(readiness));
  const auto curl = run_command("curl -sS --max-time 10 -o /dev/null " +
                                shell_quote(srv.url("/healthz")) + " 2>&1");
  EXPECT_EQ(curl.exit_code, 60) << curl.output;  // peer certificate cannot be authenticated
}

TEST_F(TlsTest, GeneratedCertificateNamesLoopbackAddresses) {
  RunningServer srv(health_router(readiness));
  const auto ca = dir.write("server.pem", fetch_server_certificate(srv.port()));
  const auto text = run_command("openssl x509 -noout -ext subjectAltName -in " +
                                shell_quote(ca.string()) + " 2>&1");
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_NE(text.output.find("DNS:localhost"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("IP Address:127.0.0.1"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("IP Address:0:0:0:0:0:0:0:1"), std::string::npos) << text.output;
}

TEST_F(TlsTest, Tls13IsPreferred) {
  RunningServer srv(health_router(readiness));
  const auto ctx = make_client_ctx({});
  TlsConnection conn(ctx.get(), srv.port());
  ASSERT_TRUE(conn.handshake()) << conn.error();
  EXPECT_EQ(conn.version(), TLS1_3_VERSION);
}

// Connects twice at TLS 1.2, offering the first session on the second
// connection; true when the server resumed it.
bool resumes_session(uint16_t port) {
  ClientTlsOptions o;
  o.max_version = TLS1_2_VERSION;
  const auto ctx = make_client_ctx(o);
  SSL_SESSION* session = nullptr;
  {
    TlsConnection first(ctx.get(), port);
    if (!first.handshake())
      return false;
    session = first.take_session();
  }
  TlsConnection second(ctx.get(), port);
  second.offer_session(session);
  const bool ok = second.handshake();
  SSL_SESSION_free(session);
  return ok && second.session_reused();
}

TEST_F(TlsTest, SessionsResumeByDefault) {
  RunningServer srv(health_router(readiness));
  EXPECT_TRUE(resumes_session(srv.port()));
}

TEST_F(TlsTest, SessionResumptionCanBeDisabled) {
  ServerOptions options;
  options.tls.session_resumption = false;
  RunningServer srv(health_router(readiness), options);
  EXPECT_FALSE(resumes_session(srv.port()));
}

TEST_F(TlsTest, Ipv6LoopbackIsServedAndNamedInTheCertificate) {
  config::ListenAddress listen;
  listen.host = "::1";
  listen.port = 0;
  log::Logger quiet(log::Level::error);
  config::TlsConfig tls;
  tls.self_signed = true;
  std::unique_ptr<server::HttpsServer> srv;
  try {
    srv = std::make_unique<server::HttpsServer>(health_router(readiness),
                                                server::make_server_tls(tls), listen,
                                                config::ServerConfig{}, quiet);
  } catch (const std::runtime_error& e) {
    GTEST_SKIP() << "no IPv6 loopback on this machine: " << e.what();
  }
  srv->start();
  EXPECT_EQ(srv->address(), "[::1]:" + std::to_string(srv->port()));
  const auto ca = dir.write("server.pem", srv->tls().certificate_pem);
  const auto curl =
      run_command("curl -sS -g --max-time 10 --cacert " + shell_quote(ca.string()) +
                  " -o /dev/null -w '%{http_code}' 'https://[::1]:" + std::to_string(srv->port()) +
                  "/healthz' 2>&1");
  EXPECT_EQ(curl.exit_code, 0) << curl.output;
  EXPECT_EQ(curl.output, "200");
}

// The client below allows TLS 1.1 itself (security level 0), so a refusal
// can only come from the server; the control shows the very same client
// setup completes at TLS 1.2.
ClientTlsOptions legacy_client(int max_version) {
  ClientTlsOptions o;
  o.min_version = TLS1_1_VERSION;
  o.max_version = max_version;
  o.security_level = 0;
  o.cipher_list = "DEFAULT@SECLEVEL=0";
  return o;
}

TEST_F(TlsTest, Tls11IsRefusedByTheServer) {
  RunningServer srv(health_router(readiness));
  const auto ctx = make_client_ctx(legacy_client(TLS1_1_VERSION));
  TlsConnection conn(ctx.get(), srv.port());
  EXPECT_FALSE(conn.handshake());
  EXPECT_EQ(conn.last_error_reason(), SSL_R_TLSV1_ALERT_PROTOCOL_VERSION) << conn.error();
}

TEST_F(TlsTest, SameLegacyCapableClientSucceedsAtTls12) {
  RunningServer srv(health_router(readiness));
  const auto ctx = make_client_ctx(legacy_client(TLS1_2_VERSION));
  TlsConnection conn(ctx.get(), srv.port());
  ASSERT_TRUE(conn.handshake()) << conn.error();
  EXPECT_EQ(conn.version(), TLS1_2_VERSION);
  ASSERT_TRUE(conn.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"));
  const auto raw = conn.read_response();
  ASSERT_TRUE(raw.has_value()) << conn.error();
  EXPECT_EQ(parse_response(*raw).status, 200);
}

TEST_F(TlsTest, OpensslCliTls11IsRefused) {
  RunningServer srv(health_router(readiness));
  const std::string target = "127.0.0.1:" + std::to_string(srv.port());
  const auto refused = run_command("openssl s_client -connect " + target +
                                   " -tls1_1 -cipher 'DEFAULT@SECLEVEL=0' </dev/null 2>&1");
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.output.find("alert protocol version"), std::string::npos) << refused.output;
  const auto accepted = run_command("openssl s_client -connect " + target +
                                    " -tls1_2 -cipher 'DEFAULT@SECLEVEL=0' </dev/null 2>&1");
  EXPECT_EQ(accepted.exit_code, 0) << accepted.output;
  EXPECT_NE(accepted.output.find("Protocol  : TLSv1.2"), std::string::npos) << accepted.output;
}

class ClientCertificateTest : public TlsTest {
 protected:
  void SetUp() override {
    pki = make_client_pki(dir);
    ServerOptions options;
    options.tls.client_ca_file = pki.ca;
    srv = std::make_unique<RunningServer>(health_router(readiness), options);
    server_pem = dir.write("server.pem", srv->server().tls().certificate_pem);
  }
  std::string curl(const std::string& extra) const {
    return "curl -sS --max-time 10 --cacert " + shell_quote(server_pem.string()) + " " + extra +
           " -o /dev/null -w '%{http_code}' " + shell_quote(srv->url("/healthz")) + " 2>/dev/null";
  }
  ClientPki pki;
  std::unique_ptr<RunningServer> srv;
  std::filesystem::path server_pem;
};

TEST_F(ClientCertificateTest, CurlWithoutCertificateIsRefused) {
  const auto r = run_command(curl(""));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(r.output, "000");
}

TEST_F(ClientCertificateTest, CurlWithCertificateFromTheCaIsAccepted) {
  const auto r = run_command(curl("--cert " + shell_quote(pki.client_cert.string()) + " --key " +
                                  shell_quote(pki.client_key.string())));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output, "200");
}

TEST_F(ClientCertificateTest, CurlWithCertificateFromAnotherCaIsRefused) {
  const auto r = run_command(curl("--cert " + shell_quote(pki.rogue_cert.string()) + " --key " +
                                  shell_quote(pki.rogue_key.string())));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(r.output, "000");
}

TEST_F(ClientCertificateTest, PocoClientWithCertificateIsAcceptedAndWithoutIsRefused) {
  auto with_cert = Poco::makeAuto<Poco::Net::Context>(
      Poco::Net::Context::TLS_CLIENT_USE, pki.client_key.string(), pki.client_cert.string(),
      server_pem.string(), Poco::Net::Context::VERIFY_RELAXED);
  EXPECT_EQ(poco_get(with_cert, srv->port(), "/healthz").first, 200);

  auto without = Poco::makeAuto<Poco::Net::Context>(
      Poco::Net::Context::TLS_CLIENT_USE, server_pem.string(), Poco::Net::Context::VERIFY_RELAXED);
  EXPECT_THROW(poco_get(without, srv->port(), "/healthz"), Poco::Exception);
}

// The extender listener's own settings are named by their key.
TEST(TlsFiles, ErrorsNameTheSectionTheSettingsCameFrom) {
  const auto error_of = [](const config::TlsConfig& tls) {
    try {
      server::make_server_tls(tls, nullptr, server::kCertificateCheckInterval, "extender.tls");
    } catch (const server::TlsError& e) {
      return std::string(e.what());
    }
    return std::string("<no error>");
  };
  config::TlsConfig files;
  files.cert_file = "/nonexistent/cert.pem";
  files.key_file = "/nonexistent/key.pem";
  EXPECT_EQ(error_of(files).rfind(
                "extender.tls.certFile \"/nonexistent/cert.pem\": cannot load the certificate "
                "chain: ",
                0),
            0u)
      << error_of(files);
  TempDir dir;
  config::TlsConfig ca;
  ca.self_signed = true;
  ca.client_ca_file = dir.write("ca.pem", "not a certificate\n");
  EXPECT_EQ(
      error_of(ca).rfind("extender.tls.clientCAFile \"" + ca.client_ca_file.string() + "\": ", 0),
      0u)
      << error_of(ca);
}

TEST(TlsFiles, MissingCertificateFileIsNamed) {
  config::TlsConfig tls;
  tls.cert_file = "/nonexistent/cert.pem";
  tls.key_file = "/nonexistent/key.pem";
  try {
    server::make_server_tls(tls);
    FAIL() << "expected TlsError";
  } catch (const server::TlsError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(
                  "tls.certFile \"/nonexistent/cert.pem\": cannot load the certificate chain: ", 0),
              0u)
        << e.what();
  }
}

TEST(TlsFiles, CertificateAndKeyFromFilesAreServed) {
  TempDir dir;
  const auto r = run_command(
      "cd " + shell_quote(dir.path().string()) +
      " && openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 2 "
      "-subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ServerOptions options;
  options.tls.self_signed = false;
  options.tls.cert_file = dir.path() / "cert.pem";
  options.tls.key_file = dir.path() / "key.pem";
  server::Readiness readiness;
  RunningServer srv(health_router(readiness), options);
  const auto curl = run_command(
      "curl -sS --max-time 10 --cacert " + shell_quote((dir.path() / "cert.pem").string()) +
      " -o /dev/null -w '%{http_code}' " + shell_quote(srv.url("/healthz")) + " 2>&1");
  EXPECT_EQ(curl.exit_code, 0) << curl.output;
  EXPECT_EQ(curl.output, "200");
}

TEST(TlsFiles, MismatchedKeyIsNamed) {
  TempDir dir;
  const auto r = run_command(
      "cd " + shell_quote(dir.path().string()) +
      " && { openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout key.pem "
      "-out cert.pem -days 2 -subj /CN=a && openssl genpkey -algorithm EC -pkeyopt "
      "ec_paramgen_curve:P-256 -out other.pem; } 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  config::TlsConfig tls;
  tls.cert_file = dir.path() / "cert.pem";
  tls.key_file = dir.path() / "other.pem";
  try {
    server::make_server_tls(tls);
    FAIL() << "expected TlsError";
  } catch (const server::TlsError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("other.pem"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace hami::test
