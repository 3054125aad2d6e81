// Certificate rotation while clients keep calling: the serving pair is
// swapped the way the kubelet updates a secret volume (a new folder, then
// one rename of the `..data` link) over and over while client threads make
// requests on fresh connections (full handshakes) and on kept-alive ones.
// Every request must succeed, and both certificates must be seen.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "server/health_routes.hpp"
#include "server/readiness.hpp"
#include "test_support.hpp"

namespace hami::test {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr auto kLoadTime = std::chrono::seconds(4);
constexpr auto kSwapEvery = std::chrono::milliseconds(100);
constexpr int kClients = 3;

void make_pair(const TempDir& dir, const std::string& name) {
  const auto r =
      run_command("cd " + shell_quote(dir.path().string()) +
                  " && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 "
                  "-nodes -keyout " +
                  name + ".key -out " + name + ".pem -days 2 -subj /CN=" + name + " 2>&1");
  if (r.exit_code != 0)
    throw std::runtime_error("openssl failed: " + r.output);
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// tls.crt / tls.key → ..data/… → ..gen_N/…, swapped by renaming ..data.
class SecretVolume {
 public:
  explicit SecretVolume(fs::path root) : root_(std::move(root)) { fs::create_directories(root_); }
  void publish(const fs::path& cert, const fs::path& key) {
    const std::string gen = "..gen_" + std::to_string(generation_++);
    fs::create_directory(root_ / gen);
    fs::copy_file(cert, root_ / gen / "tls.crt");
    fs::copy_file(key, root_ / gen / "tls.key");
    fs::create_directory_symlink(gen, root_ / "..data_tmp");
    fs::rename(root_ / "..data_tmp", root_ / "..data");
    for (const char* name : {"tls.crt", "tls.key"}) {
      if (!fs::is_symlink(root_ / name))
        fs::create_symlink(fs::path("..data") / name, root_ / name);
    }
    if (!previous_.empty())
      fs::remove_all(root_ / previous_);
    previous_ = gen;
  }
  fs::path file(const char* name) const { return root_ / name; }

 private:
  fs::path root_;
  int generation_ = 0;
  std::string previous_;
};

TEST(RotationUnderLoad, SwappingCertificatesFailsNoRequest) {
  TempDir dir;
  make_pair(dir, "first");
  make_pair(dir, "second");
  SecretVolume volume(dir.path() / "volume");
  volume.publish(dir.path() / "first.pem", dir.path() / "first.key");
  config::TlsConfig tls;
  tls.cert_file = volume.file("tls.crt");
  tls.key_file = volume.file("tls.key");
  auto router = std::make_shared<server::Router>();
  server::Readiness readiness;
  server::register_health_routes(*router, readiness);
  log::Logger logger{log::Level::error};
  config::ListenAddress listen;
  listen.host = "127.0.0.1";
  listen.port = 0;
  // Files checked on every handshake: the most swaps meet handshakes.
  server::HttpsServer srv(router,
                          server::make_server_tls(tls, &logger, std::chrono::milliseconds(0)),
                          listen, config::ServerConfig{}, logger);
  srv.start();

  const std::string first = read_file(dir.path() / "first.pem");
  const std::string second = read_file(dir.path() / "second.pem");
  std::atomic<bool> stop{false};
  std::atomic<int> ok{0};
  std::atomic<int> failed{0};
  std::mutex seen_mutex;
  std::set<std::string> seen;
  std::vector<std::string> failures;

  const auto client = [&](bool keep_alive) {
    const auto ctx = make_client_ctx({});
    std::unique_ptr<TlsConnection> conn;
    while (!stop.load()) {
      if (!conn) {
        conn = std::make_unique<TlsConnection>(ctx.get(), srv.port());
        if (!conn->handshake()) {
          ++failed;
          const std::lock_guard lock(seen_mutex);
          failures.push_back("handshake: " + conn->error());
          conn.reset();
          continue;
        }
        const std::lock_guard lock(seen_mutex);
        seen.insert(conn->peer_certificate_pem());
      }
      const bool sent = conn->send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
      const auto raw = sent ? conn->read_response() : std::nullopt;
      if (raw && parse_response(*raw).status == 200) {
        ++ok;
      } else {
        ++failed;
        const std::lock_guard lock(seen_mutex);
        failures.push_back("request: " + conn->error());
      }
      if (!keep_alive || !raw)
        conn.reset();
    }
  };
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i)
    clients.emplace_back(client, i == 0);

  int swaps = 0;
  const auto until = Clock::now() + kLoadTime;
  while (Clock::now() < until) {
    std::this_thread::sleep_for(kSwapEvery);
    const bool to_second = swaps % 2 == 0;
    volume.publish(dir.path() / (to_second ? "second.pem" : "first.pem"),
                   dir.path() / (to_second ? "second.key" : "first.key"));
    ++swaps;
  }
  stop.store(true);
  for (auto& t : clients)
    t.join();

  EXPECT_EQ(failed.load(), 0) << (failures.empty() ? "" : failures.front());
  EXPECT_GT(ok.load(), 100);
  EXPECT_GE(swaps, 20);
  EXPECT_EQ(seen, (std::set<std::string>{first, second}));
  RecordProperty("requests", ok.load());
  RecordProperty("swaps", swaps);
}

}  // namespace
}  // namespace hami::test
