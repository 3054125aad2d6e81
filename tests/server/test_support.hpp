// Helpers for the server tests: a temporary folder, a shell command runner,
// a raw OpenSSL client (exact control over TLS versions, client
// certificates and the bytes sent) and a server fixture on an ephemeral
// loopback port.
#pragma once

#include <openssl/ssl.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "config/host_config.hpp"
#include "log/logger.hpp"
#include "server/https_server.hpp"
#include "server/router.hpp"

namespace hami::test {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path write(const std::string& name, const std::string& content) const;

 private:
  std::filesystem::path path_;
};

struct CommandResult {
  int exit_code = -1;  // -1 when the command did not exit normally
  std::string output;  // stdout (and stderr when the command redirects it)
};
CommandResult run_command(const std::string& command);

// Quotes a string for /bin/sh.
std::string shell_quote(const std::string& s);

// A CA, a client certificate it signs, and one signed by an unrelated CA,
// made with the openssl command in `dir`. Throws std::runtime_error when
// openssl fails.
struct ClientPki {
  std::filesystem::path ca, client_cert, client_key, rogue_cert, rogue_key;
};
ClientPki make_client_pki(const TempDir& dir);

struct SslCtxFree {
  void operator()(SSL_CTX* p) const { SSL_CTX_free(p); }
};
using SslCtxPtr = std::unique_ptr<SSL_CTX, SslCtxFree>;

struct ClientTlsOptions {
  int min_version = TLS1_2_VERSION;
  int max_version = TLS1_3_VERSION;
  int security_level = -1;          // -1: OpenSSL's default
  std::string cipher_list;          // empty: default
  std::filesystem::path ca_file;    // empty: no verification
  std::filesystem::path cert_file;  // client certificate
  std::filesystem::path key_file;
};
SslCtxPtr make_client_ctx(const ClientTlsOptions& options);

// One TCP+TLS connection to `ipv4`:port (127.0.0.1 by default). Every
// socket read and write is bounded by a 10 s timeout so a misbehaving
// server fails the test instead of hanging it.
class TlsConnection {
 public:
  TlsConnection(SSL_CTX* ctx, uint16_t port, const std::string& ipv4 = "127.0.0.1");
  ~TlsConnection();
  TlsConnection(const TlsConnection&) = delete;
  TlsConnection& operator=(const TlsConnection&) = delete;

  // True when the handshake completed; otherwise error() names the reason.
  bool handshake();
  const std::string& error() const { return error_; }
  int last_error_reason() const { return reason_; }  // ERR_GET_REASON of the failure
  int version() const;                               // TLS1_2_VERSION, ...
  // Offers `session` for resumption; call before handshake().
  void offer_session(SSL_SESSION* session);
  // The negotiated session (owned by the caller), or null.
  SSL_SESSION* take_session() const;
  bool session_reused() const;
  std::string peer_certificate_pem() const;

  bool send(const std::string& bytes);
  // Reads one HTTP/1.1 response (headers + Content-Length body); nullopt on
  // EOF, error or timeout.
  std::optional<std::string> read_response();

 private:
  int fd_ = -1;
  SSL* ssl_ = nullptr;
  std::string error_;
  int reason_ = 0;
  std::string buffer_;
};

// An IPv4 address of this machine that is not a loopback address (of an
// interface that is up), or nullopt when it has none.
std::optional<std::string> non_loopback_ipv4();

struct ParsedResponse {
  int status = 0;
  std::string status_line;
  std::string headers;  // raw header block, lower-cased names
  std::string body;
  std::string header(const std::string& lower_name) const;
};
ParsedResponse parse_response(const std::string& raw);

// One JSON request on a new connection (Connection: close) to 127.0.0.1:port.
// A failed handshake, send or read gives status 0 and the reason as body.
ParsedResponse json_request(SSL_CTX* ctx, uint16_t port, const std::string& method,
                            const std::string& path, const std::string& body = "");

// A started HttpsServer on 127.0.0.1:0 with a self-signed identity.
struct ServerOptions {
  config::TlsConfig tls = [] {
    config::TlsConfig t;
    t.self_signed = true;
    return t;
  }();
  config::ServerConfig settings;
};

class RunningServer {
 public:
  RunningServer(std::shared_ptr<server::Router> router, const ServerOptions& options = {});
  server::HttpsServer& server() { return *server_; }
  uint16_t port() const { return server_->port(); }
  std::string url(const std::string& path) const;

 private:
  log::Logger logger_{log::Level::error};
  std::unique_ptr<server::HttpsServer> server_;
};

}  // namespace hami::test
