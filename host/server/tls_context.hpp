// The server's TLS context, built directly (no SSLManager property files):
//  - TLS 1.2 minimum (SSL_CTX_set_min_proto_version), TLS 1.3 preferred;
//  - ECDHE + AEAD cipher suites only for TLS 1.2, server preference;
//  - no compression, no renegotiation;
//  - certificate chain and key from files, or a self-signed identity made
//    in memory (tls.selfSigned);
//  - with tls.clientCAFile: clients must present a certificate that chains
//    to that CA (verification fails the handshake otherwise);
//  - tls.sessionResumption false: no session cache and no tickets;
//  - certificate, key and client CA files are re-read when they change
//    (CertificateReloader; not with tls.selfSigned).
#pragma once

#include <Poco/Net/Context.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "config/host_config.hpp"
#include "server/certificate_reloader.hpp"

namespace hami::server {

// A TLS set-up problem; the message names the config key and file.
class TlsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ServerTls {
  // Declared first so it outlives the context whose callback points at it.
  std::shared_ptr<CertificateReloader> reloader;  // null when self-signed
  Poco::Net::Context::Ptr context;
  std::string certificate_pem;     // the certificate served (leaf)
  std::string certificate_sha256;  // its fingerprint, for logs
  bool self_signed = false;
};

// Cipher suites offered for TLS 1.2 (TLS 1.3 uses OpenSSL's defaults, all
// of which are AEAD).
inline constexpr const char* kTls12Ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

// How often, at most, handshakes look at the certificate files' stamps.
inline constexpr std::chrono::milliseconds kCertificateCheckInterval{1000};

// Throws TlsError, naming the config key of the file at fault under
// `section` ("tls", or "extender.tls" for the extender listener's own).
// `logger` (may be null) receives certificate reload events and must
// outlive the result.
ServerTls make_server_tls(const config::TlsConfig& tls, const log::Logger* logger = nullptr,
                          std::chrono::milliseconds reload_check = kCertificateCheckInterval,
                          std::string_view section = "tls");

}  // namespace hami::server
