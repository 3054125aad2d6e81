#include "server/tls_context.hpp"

#include <openssl/ssl.h>

#include "server/openssl_handles.hpp"
#include "server/self_signed.hpp"

namespace hami::server {
namespace {

// Key files must not prompt for a passphrase on a server's terminal.
int refuse_passphrase(char*, int, int, void*) {
  return -1;
}

void configure_protocol(SSL_CTX* ctx) {
  if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1 ||
      SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION) != 1) {
    throw TlsError("cannot restrict TLS versions: " + openssl_errors());
  }
  // SSL_OP_IGNORE_UNEXPECTED_EOF: a read that meets the end of the
  // connection without close_notify ends like a clean close instead of
  // poisoning the TLS session, so the server can still send its 408 after
  // the request deadline shut the receiving side. Truncation stays
  // detected where it matters: HTTP framing (Content-Length, chunks) tells
  // a cut-off body from a complete one.
  SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION |
                               SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_SSLv3 | SSL_OP_NO_TLSv1 |
                               SSL_OP_NO_TLSv1_1 | SSL_OP_IGNORE_UNEXPECTED_EOF);
  if (SSL_CTX_set_cipher_list(ctx, kTls12Ciphers) != 1) {
    throw TlsError("cannot set cipher list: " + openssl_errors());
  }
  SSL_CTX_set_default_passwd_cb(ctx, refuse_passphrase);
}

// `section` is the config key the settings came from: "tls", "extender.tls".
void load_files(SSL_CTX* ctx, const config::TlsConfig& tls, const std::string& section,
                ServerTls& out) {
  const std::string cert = tls.cert_file.string();
  const std::string key = tls.key_file.string();
  if (SSL_CTX_use_certificate_chain_file(ctx, cert.c_str()) != 1) {
    throw TlsError(section + ".certFile \"" + cert +
                   "\": cannot load the certificate chain: " + openssl_errors());
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, key.c_str(), SSL_FILETYPE_PEM) != 1) {
    throw TlsError(section + ".keyFile \"" + key +
                   "\": cannot load the private key (PEM, unencrypted): " + openssl_errors());
  }
  if (SSL_CTX_check_private_key(ctx) != 1) {
    throw TlsError(section + ".keyFile \"" + key + "\" does not match " + section + ".certFile \"" +
                   cert + "\": " + openssl_errors());
  }
  X509* leaf = SSL_CTX_get0_certificate(ctx);
  out.certificate_pem = certificate_pem(leaf);
  out.certificate_sha256 = certificate_sha256(leaf);
}

void use_self_signed(SSL_CTX* ctx, const std::string& section, ServerTls& out) {
  SelfSignedIdentity id;
  try {
    id = generate_self_signed();
  } catch (const std::runtime_error& e) {
    throw TlsError(section + ".selfSigned: " + e.what());
  }
  if (SSL_CTX_use_certificate(ctx, id.certificate.get()) != 1 ||
      SSL_CTX_use_PrivateKey(ctx, id.key.get()) != 1 || SSL_CTX_check_private_key(ctx) != 1) {
    throw TlsError(section +
                   ".selfSigned: cannot install the generated identity: " + openssl_errors());
  }
  out.certificate_pem = certificate_pem(id.certificate.get());
  out.certificate_sha256 = certificate_sha256(id.certificate.get());
  out.self_signed = true;
}

void require_client_certificates(SSL_CTX* ctx, const config::TlsConfig& tls,
                                 const std::string& section) {
  const std::string ca = tls.client_ca_file.string();
  if (SSL_CTX_load_verify_locations(ctx, ca.c_str(), nullptr) != 1) {
    throw TlsError(section + ".clientCAFile \"" + ca +
                   "\": cannot load CA certificates: " + openssl_errors());
  }
  STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(ca.c_str());
  if (names == nullptr) {
    throw TlsError(section + ".clientCAFile \"" + ca +
                   "\": no CA certificate found: " + openssl_errors());
  }
  SSL_CTX_set_client_CA_list(ctx, names);  // takes ownership
  // OpenSSL's own verification decides; Poco's callback would consult the
  // process-wide SSLManager, which this host does not configure.
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  SSL_CTX_set_verify_depth(ctx, 9);
}

void configure_resumption(Poco::Net::Context& context, bool enabled) {
  SSL_CTX* ctx = context.sslContext();
  if (enabled) {
    // A session id context is required for resumption when clients are
    // verified; it ties sessions to this service.
    context.enableSessionCache(true, "hami-scheduler");
    return;
  }
  context.enableSessionCache(false);
  SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
  SSL_CTX_set_num_tickets(ctx, 0);
}

}  // namespace

ServerTls make_server_tls(const config::TlsConfig& tls, const log::Logger* logger,
                          std::chrono::milliseconds reload_check, std::string_view section_key) {
  const std::string section(section_key);
  ServerTls out;
  Poco::Net::Context::Params params;
  params.verificationMode = Poco::Net::Context::VERIFY_NONE;
  params.loadDefaultCAs = false;
  params.cipherList = kTls12Ciphers;
  params.ecdhCurve = "X25519:P-256:P-384";
  try {
    out.context = Poco::makeAuto<Poco::Net::Context>(Poco::Net::Context::TLS_SERVER_USE, params);
  } catch (const Poco::Exception& e) {
    throw TlsError("cannot create the TLS context: " + e.displayText());
  }
  SSL_CTX* ctx = out.context->sslContext();
  configure_protocol(ctx);
  if (tls.self_signed) {
    use_self_signed(ctx, section, out);
  } else {
    load_files(ctx, tls, section, out);
    try {
      out.reloader = std::make_shared<CertificateReloader>(
          tls.cert_file, tls.key_file, reload_check, logger, tls.client_ca_file);
    } catch (const std::runtime_error& e) {
      throw TlsError(section + ".certFile/" + section + ".keyFile: " + e.what());
    }
    out.reloader->attach(ctx);
  }
  if (!tls.client_ca_file.empty()) {
    require_client_certificates(ctx, tls, section);
  } else {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
  }
  configure_resumption(*out.context, tls.session_resumption);
  return out;
}

}  // namespace hami::server
