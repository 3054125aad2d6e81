// Certificate files are re-read on rotation without a restart.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

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

// A secret volume as the kubelet writes it: the files are links through
// `..data` into a timestamped folder, and an update swaps `..data` to a new
// folder in one rename.
class SecretVolume {
 public:
  explicit SecretVolume(std::filesystem::path root) : root_(std::move(root)) {
    std::filesystem::create_directories(root_);
  }
  // Publishes the given files (name → source file) as a new generation.
  void publish(const std::vector<std::pair<std::string, std::filesystem::path>>& files) {
    const std::string gen = "..gen_" + std::to_string(generation_++);
    std::filesystem::create_directory(root_ / gen);
    for (const auto& [name, from] : files)
      std::filesystem::copy_file(from, root_ / gen / name);
    std::filesystem::create_directory_symlink(gen, root_ / "..data_tmp");
    std::filesystem::rename(root_ / "..data_tmp", root_ / "..data");
    for (const auto& [name, from] : files) {
      if (!std::filesystem::is_symlink(root_ / name))
        std::filesystem::create_symlink(std::filesystem::path("..data") / name, root_ / name);
    }
    if (!previous_.empty())
      std::filesystem::remove_all(root_ / previous_);
    previous_ = gen;
  }
  std::filesystem::path file(const std::string& name) const { return root_ / name; }

 private:
  std::filesystem::path root_;
  int generation_ = 0;
  std::string previous_;
};

class SecretVolumeReload : public ::testing::Test {
 protected:
  void SetUp() override {
    make_pair(dir, "a", "first");
    make_pair(dir, "b", "second");
    volume.publish({{"tls.crt", dir.path() / "a.pem"}, {"tls.key", dir.path() / "a.key"}});
    config::TlsConfig tls;
    tls.cert_file = volume.file("tls.crt");
    tls.key_file = volume.file("tls.key");
    auto router = std::make_shared<server::Router>();
    server::register_health_routes(*router, readiness);
    config::ListenAddress listen;
    listen.host = "127.0.0.1";
    listen.port = 0;
    srv = std::make_unique<server::HttpsServer>(
        router, server::make_server_tls(tls, &logger, std::chrono::milliseconds(0)), listen,
        config::ServerConfig{}, logger);
    srv->start();
  }

  TempDir dir;
  SecretVolume volume{dir.path() / "volume"};
  server::Readiness readiness;
  std::ostringstream log_text;
  log::Logger logger{log::Level::info, log::Format::text, &log_text};
  std::unique_ptr<server::HttpsServer> srv;
};

TEST_F(SecretVolumeReload, DataLinkSwapIsServedToNewHandshakes) {
  EXPECT_EQ(served_certificate(srv->port()), read_file(dir.path() / "a.pem"));
  volume.publish({{"tls.crt", dir.path() / "b.pem"}, {"tls.key", dir.path() / "b.key"}});
  EXPECT_EQ(served_certificate(srv->port()), read_file(dir.path() / "b.pem"));
  EXPECT_NE(log_text.str().find("certificate reloaded"), std::string::npos) << log_text.str();
  // And back again: every swap is noticed, not only the first.
  volume.publish({{"tls.crt", dir.path() / "a.pem"}, {"tls.key", dir.path() / "a.key"}});
  EXPECT_EQ(served_certificate(srv->port()), read_file(dir.path() / "a.pem"));
}

TEST_F(SecretVolumeReload, MismatchedPairIsRefusedWithAnErrorAndTheOldOneKept) {
  volume.publish({{"tls.crt", dir.path() / "b.pem"}, {"tls.key", dir.path() / "a.key"}});
  EXPECT_EQ(served_certificate(srv->port()), read_file(dir.path() / "a.pem"));
  const std::string text = log_text.str();
  EXPECT_NE(text.find("certificate reload failed; keeping the previous certificate"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("does not match"), std::string::npos) << text;
  EXPECT_NE(text.find(" error msg="), std::string::npos) << text;
  // A correct pair afterwards is picked up.
  volume.publish({{"tls.crt", dir.path() / "b.pem"}, {"tls.key", dir.path() / "b.key"}});
  EXPECT_EQ(served_certificate(srv->port()), read_file(dir.path() / "b.pem"));
}

// Two CAs, each signing one client certificate.
void make_client_cas(const TempDir& dir) {
  dir.write("client.ext", "extendedKeyUsage=clientAuth\n");
  const std::string script =
      "set -e; cd " + shell_quote(dir.path().string()) +
      "; for ca in ca1 ca2; do openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 "
      "-nodes -keyout $ca.key -out $ca.pem -subj /CN=$ca -days 2 "
      "-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign; "
      "openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout $ca-client.key "
      "-out $ca-client.csr -subj /CN=$ca-client; openssl x509 -req -in $ca-client.csr -CA "
      "$ca.pem -CAkey $ca.key -CAcreateserial -out $ca-client.pem -days 2 -extfile client.ext; "
      "done";
  const auto r = run_command("sh -c " + shell_quote(script) + " 2>&1");
  if (r.exit_code != 0)
    throw std::runtime_error("openssl failed: " + r.output);
}

bool client_accepted(const TempDir& dir, uint16_t port, const std::string& client) {
  ClientTlsOptions o;
  o.cert_file = dir.path() / (client + ".pem");
  o.key_file = dir.path() / (client + ".key");
  const auto ctx = make_client_ctx(o);
  TlsConnection conn(ctx.get(), port);
  // With TLS 1.3 a refused client certificate shows on the first read.
  if (!conn.handshake() || !conn.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"))
    return false;
  const auto raw = conn.read_response();
  return raw.has_value() && parse_response(*raw).status == 200;
}

TEST(ClientCaReload, RotatedClientCaDecidesNewHandshakes) {
  TempDir dir;
  make_pair(dir, "server", "server");
  make_client_cas(dir);
  SecretVolume volume(dir.path() / "volume");
  volume.publish({{"tls.crt", dir.path() / "server.pem"},
                  {"tls.key", dir.path() / "server.key"},
                  {"ca.crt", dir.path() / "ca1.pem"}});
  config::TlsConfig tls;
  tls.cert_file = volume.file("tls.crt");
  tls.key_file = volume.file("tls.key");
  tls.client_ca_file = volume.file("ca.crt");
  auto router = std::make_shared<server::Router>();
  server::Readiness readiness;
  server::register_health_routes(*router, readiness);
  log::Logger logger{log::Level::error};
  config::ListenAddress listen;
  listen.host = "127.0.0.1";
  listen.port = 0;
  server::HttpsServer srv(router,
                          server::make_server_tls(tls, &logger, std::chrono::milliseconds(0)),
                          listen, config::ServerConfig{}, logger);
  srv.start();
  EXPECT_TRUE(client_accepted(dir, srv.port(), "ca1-client"));
  EXPECT_FALSE(client_accepted(dir, srv.port(), "ca2-client"));
  volume.publish({{"tls.crt", dir.path() / "server.pem"},
                  {"tls.key", dir.path() / "server.key"},
                  {"ca.crt", dir.path() / "ca2.pem"}});
  EXPECT_FALSE(client_accepted(dir, srv.port(), "ca1-client"));
  EXPECT_TRUE(client_accepted(dir, srv.port(), "ca2-client"));
}

}  // namespace
}  // namespace hami::test
