// Certificate files are re-read on rotation without a restart.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "server/health_routes.hpp"
#include "server/readiness.hpp"
#include "test_support.hpp"

namespace hami::test {
namespace {

// Writes a fresh self-signed pair as <name>.pem / <name>.key.
void make_pair(const TempDir& dir, const std::string& name, const std::string& cn) {
  const auto r = run_command("cd " + shell_quote(dir.path().string()) +
                             " && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 "
                             "-nodes -keyout " +
                             name + ".key -out " + name + ".pem -days 2 -subj /CN=" + cn + " 2>&1");
  if (r.exit_code != 0)
    throw std::runtime_error("openssl failed: " + r.output);
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Replaces `to` with the content of `from` in one rename, as rotation tools do.
void replace_file(const std::filesystem::path& from, const std::filesystem::path& to) {
  const auto tmp = to.string() + ".tmp";
  std::filesystem::copy_file(from, tmp, std::filesystem::copy_options::overwrite_existing);
  std::filesystem::rename(tmp, to);
}

std::string served_certificate(uint16_t port) {
  const auto ctx = make_client_ctx({});
  TlsConnection conn(ctx.get(), port);
  if (!conn.handshake())
    return "handshake failed: " + conn.error();
  return conn.peer_certificate_pem();
}

class CertificateReload : public ::testing::Test {
 protected:
  void SetUp() override {
    make_pair(dir, "a", "first");
    make_pair(dir, "b", "second");
    std::filesystem::copy_file(dir.path() / "a.pem", dir.path() / "tls.pem");
    std::filesystem::copy_file(dir.path() / "a.key", dir.path() / "tls.key");
    config::TlsConfig tls;
    tls.cert_file = dir.path() / "tls.pem";
    tls.key_file = dir.path() / "tls.key";
    auto router = std::make_shared<server::Router>();
    server::register_health_routes(*router, readiness);
    config::ListenAddress listen;
    listen.host = "127.0.0.1";
    listen.port = 0;
    // Check the files on every handshake, so the test needs no waiting.
    srv = std::make_unique<server::HttpsServer>(
        router, server::make_server_tls(tls, &logger, std::chrono::milliseconds(0)), listen,
        config::ServerConfig{}, logger);
    srv->start();
  }

  TempDir dir;
  server::Readiness readiness;
  log::Logger logger{log::Level::error};
  std::unique_ptr<server::HttpsServer> srv;
};

TEST_F(CertificateReload, RotatedPairIsServedToNewHandshakes) {
  const std::string a = read_file(dir.path() / "a.pem");
  const std::string b = read_file(dir.path() / "b.pem");
  ASSERT_NE(a, b);
  EXPECT_EQ(served_certificate(srv->port()), a);
  replace_file(dir.path() / "b.key", dir.path() / "tls.key");
  replace_file(dir.path() / "b.pem", dir.path() / "tls.pem");
  EXPECT_EQ(served_certificate(srv->port()), b);
  EXPECT_EQ(
      srv->tls().reloader->current_sha256(),
      run_command("openssl x509 -noout -fingerprint -sha256 -in " +
                  shell_quote((dir.path() / "b.pem").string()) + " | cut -d= -f2 | tr -d '\\n'")
          .output);
}

TEST_F(CertificateReload, HalfRotatedPairKeepsThePreviousCertificate) {
  const std::string a = read_file(dir.path() / "a.pem");
  // Certificate replaced, key not yet: they do not match.
  replace_file(dir.path() / "b.pem", dir.path() / "tls.pem");
  EXPECT_EQ(served_certificate(srv->port()), a);
  // The key arrives: the pair is complete and served.
  replace_file(dir.path() / "b.key", dir.path() / "tls.key");
  EXPECT_EQ(served_certificate(srv->port()), read_file(dir.path() / "b.pem"));
}

TEST_F(CertificateReload, UnreadableFilesKeepThePreviousCertificate) {
  const std::string a = read_file(dir.path() / "a.pem");
  { std::ofstream(dir.path() / "garbage.pem") << "-----BEGIN CERTIFICATE-----\nnope\n"; }
  replace_file(dir.path() / "garbage.pem", dir.path() / "tls.pem");
  EXPECT_EQ(served_certificate(srv->port()), a);
  std::filesystem::remove(dir.path() / "tls.key");
  EXPECT_EQ(served_certificate(srv->port()), a);
}

}  // namespace
}  // namespace hami::test
