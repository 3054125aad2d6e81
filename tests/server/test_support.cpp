#include "test_support.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <stdexcept>

#include "server/openssl_handles.hpp"
#include "server/tls_context.hpp"

namespace hami::test {

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "hami-test-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr)
    throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::filesystem::path TempDir::write(const std::string& name, const std::string& content) const {
  const auto p = path_ / name;
  std::filesystem::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary);
  out << content;
  return p;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

ClientPki make_client_pki(const TempDir& dir) {
  const std::string d = shell_quote(dir.path().string());
  dir.write("client.ext", "extendedKeyUsage=clientAuth\n");
  const std::string script =
      "set -e; cd " + d +
      "; for ca in ca rogue-ca; do openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 "
      "-nodes -keyout $ca.key -out $ca.pem -subj /CN=$ca -days 2 "
      "-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign; "
      "done; "
      "for c in client:ca rogue:rogue-ca; do n=${c%%:*}; ca=${c##*:}; "
      "openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout $n.key -out $n.csr "
      "-subj /CN=$n; openssl x509 -req -in $n.csr -CA $ca.pem -CAkey $ca.key -CAcreateserial "
      "-out $n.pem -days 2 -extfile client.ext; done";
  const auto r = run_command("sh -c " + shell_quote(script) + " 2>&1");
  if (r.exit_code != 0)
    throw std::runtime_error("openssl failed: " + r.output);
  const auto& p = dir.path();
  return {p / "ca.pem", p / "client.pem", p / "client.key", p / "rogue.pem", p / "rogue.key"};
}

CommandResult run_command(const std::string& command) {
  CommandResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr)
    return result;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0)
    result.output.append(buf.data(), n);
  const int status = pclose(pipe);
  if (WIFEXITED(status))
    result.exit_code = WEXITSTATUS(status);
  return result;
}

SslCtxPtr make_client_ctx(const ClientTlsOptions& o) {
  SslCtxPtr ctx(SSL_CTX_new(TLS_client_method()));
  if (!ctx)
    throw std::runtime_error("SSL_CTX_new failed");
  if (o.security_level >= 0)
    SSL_CTX_set_security_level(ctx.get(), o.security_level);
  if (!o.cipher_list.empty() && SSL_CTX_set_cipher_list(ctx.get(), o.cipher_list.c_str()) != 1) {
    throw std::runtime_error("bad cipher list: " + server::openssl_errors());
  }
  SSL_CTX_set_min_proto_version(ctx.get(), o.min_version);
  SSL_CTX_set_max_proto_version(ctx.get(), o.max_version);
  if (!o.ca_file.empty()) {
    if (SSL_CTX_load_verify_locations(ctx.get(), o.ca_file.c_str(), nullptr) != 1) {
      throw std::runtime_error("cannot load CA: " + server::openssl_errors());
    }
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  } else {
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_NONE, nullptr);
  }
  if (!o.cert_file.empty()) {
    if (SSL_CTX_use_certificate_chain_file(ctx.get(), o.cert_file.c_str()) != 1 ||
        SSL_CTX_use_PrivateKey_file(ctx.get(), o.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
      throw std::runtime_error("cannot load client identity: " + server::openssl_errors());
    }
  }
  return ctx;
}

TlsConnection::TlsConnection(SSL_CTX* ctx, uint16_t port, const std::string& ipv4) {
  // A server that resets the connection must fail the write, not kill the
  // test process (OpenSSL writes with write(2), which raises SIGPIPE).
  static std::once_flag ignore_sigpipe;
  std::call_once(ignore_sigpipe, [] { ::signal(SIGPIPE, SIG_IGN); });
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd_ < 0)
    throw std::runtime_error("socket failed");
  timeval tv{10, 0};
  setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  if (inet_pton(AF_INET, ipv4.c_str(), &addr.sin_addr) != 1) {
    ::close(fd_);
    throw std::runtime_error("not an IPv4 address: " + ipv4);
  }
  if (::connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd_);
    throw std::runtime_error("connect failed");
  }
  ssl_ = SSL_new(ctx);
  SSL_set_fd(ssl_, fd_);
}

TlsConnection::~TlsConnection() {
  // A clean close_notify keeps the session resumable (OpenSSL drops
  // sessions of connections that end without one).
  if (ssl_ != nullptr && SSL_is_init_finished(ssl_))
    SSL_shutdown(ssl_);
  if (ssl_ != nullptr)
    SSL_free(ssl_);
  if (fd_ >= 0)
    ::close(fd_);
}

bool TlsConnection::handshake() {
  ERR_clear_error();
  if (SSL_connect(ssl_) == 1)
    return true;
  const unsigned long code = ERR_peek_error();
  reason_ = ERR_GET_REASON(code);
  error_ = server::openssl_errors();
  return false;
}

int TlsConnection::version() const {
  return SSL_version(ssl_);
}

void TlsConnection::offer_session(SSL_SESSION* session) {
  SSL_set_session(ssl_, session);
}

SSL_SESSION* TlsConnection::take_session() const {
  return SSL_get1_session(ssl_);
}

bool TlsConnection::session_reused() const {
  return SSL_session_reused(ssl_) == 1;
}

std::string TlsConnection::peer_certificate_pem() const {
  X509* cert = SSL_get1_peer_certificate(ssl_);
  if (cert == nullptr)
    return {};
  const server::X509Ptr owned(cert);
  return server::certificate_pem(cert);
}

bool TlsConnection::send(const std::string& bytes) {
  size_t off = 0;
  while (off < bytes.size()) {
    const int n = SSL_write(ssl_, bytes.data() + off, static_cast<int>(bytes.size() - off));
    if (n <= 0)
      return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

std::optional<std::string> TlsConnection::read_response() {
  const auto fill = [this]() {
    char buf[16384];
    ERR_clear_error();
    const int n = SSL_read(ssl_, buf, sizeof buf);
    if (n <= 0) {
      reason_ = ERR_GET_REASON(ERR_peek_error());
      error_ = server::openssl_errors();
      return false;
    }
    buffer_.append(buf, static_cast<size_t>(n));
    return true;
  };
  size_t header_end = 0;
  while ((header_end = buffer_.find("\r\n\r\n")) == std::string::npos) {
    if (!fill())
      return std::nullopt;
  }
  const ParsedResponse head = parse_response(buffer_.substr(0, header_end + 4));
  const std::string cl = head.header("content-length");
  const size_t body_len = cl.empty() ? 0 : std::stoul(cl);
  while (buffer_.size() < header_end + 4 + body_len) {
    if (!fill())
      return std::nullopt;
  }
  std::string out = buffer_.substr(0, header_end + 4 + body_len);
  buffer_.erase(0, out.size());
  return out;
}

ParsedResponse json_request(SSL_CTX* ctx, uint16_t port, const std::string& method,
                            const std::string& path, const std::string& body) {
  TlsConnection conn(ctx, port);
  ParsedResponse failed;
  if (!conn.handshake()) {
    failed.body = "handshake failed: " + conn.error();
    return failed;
  }
  if (!conn.send(method + " " + path +
                 " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                 "Content-Length: " +
                 std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body)) {
    failed.body = "send failed";
    return failed;
  }
  const auto raw = conn.read_response();
  if (!raw) {
    failed.body = "no response";
    return failed;
  }
  return parse_response(*raw);
}

ParsedResponse parse_response(const std::string& raw) {
  ParsedResponse r;
  const auto head_end = raw.find("\r\n\r\n");
  const std::string head = raw.substr(0, head_end);
  if (head_end != std::string::npos)
    r.body = raw.substr(head_end + 4);
  const auto line_end = head.find("\r\n");
  r.status_line = head.substr(0, line_end);
  if (r.status_line.size() >= 12)
    r.status = std::atoi(r.status_line.substr(9, 3).c_str());
  if (line_end != std::string::npos) {
    std::string headers = head.substr(line_end + 2);
    // Lower-case header names only, keep values.
    size_t pos = 0;
    while (pos < headers.size()) {
      const auto colon = headers.find(':', pos);
      const auto eol = headers.find("\r\n", pos);
      const auto stop = std::min(colon, eol);
      for (size_t i = pos; i < stop && i < headers.size(); ++i) {
        headers[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(headers[i])));
      }
      if (eol == std::string::npos)
        break;
      pos = eol + 2;
    }
    r.headers = "\r\n" + headers + "\r\n";
  }
  return r;
}

std::string ParsedResponse::header(const std::string& lower_name) const {
  const std::string key = "\r\n" + lower_name + ":";
  const auto at = headers.find(key);
  if (at == std::string::npos)
    return {};
  const auto start = at + key.size();
  const auto end = headers.find("\r\n", start);
  std::string value = headers.substr(start, end - start);
  while (!value.empty() && value.front() == ' ')
    value.erase(0, 1);
  return value;
}

RunningServer::RunningServer(std::shared_ptr<server::Router> router, const ServerOptions& options) {
  config::ListenAddress listen;
  listen.host = "127.0.0.1";
  listen.port = 0;
  server_ = std::make_unique<server::HttpsServer>(
      std::move(router), server::make_server_tls(options.tls), listen, options.settings, logger_);
  server_->start();
}

std::string RunningServer::url(const std::string& path) const {
  return "https://127.0.0.1:" + std::to_string(port()) + path;
}

std::optional<std::string> non_loopback_ipv4() {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0)
    return std::nullopt;
  std::optional<std::string> found;
  for (const ifaddrs* i = list; i != nullptr && !found; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP) ||
        (i->ifa_flags & IFF_LOOPBACK))
      continue;
    const auto* a = reinterpret_cast<const sockaddr_in*>(i->ifa_addr);
    if ((ntohl(a->sin_addr.s_addr) >> 24) == 127)
      continue;
    char text[INET_ADDRSTRLEN] = {};
    if (inet_ntop(AF_INET, &a->sin_addr, text, sizeof text) != nullptr)
      found = text;
  }
  freeifaddrs(list);
  return found;
}

}  // namespace hami::test
