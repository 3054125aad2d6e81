#include "kube/api_tls.hpp"

#include <Poco/AutoPtr.h>
#include <Poco/Exception.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <memory>
#include <vector>

namespace hami::kube {
namespace {

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;
using KeyPtr = std::unique_ptr<EVP_PKEY, KeyFree>;

std::string openssl_errors() {
  std::string out;
  while (const unsigned long code = ERR_get_error()) {
    char text[256];
    ERR_error_string_n(code, text, sizeof text);
    if (!out.empty())
      out += "; ";
    out += text;
  }
  return out.empty() ? "no OpenSSL detail" : out;
}

BioPtr memory_bio(const std::string& pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio)
    throw ApiConfigError("cannot allocate a memory BIO: " + openssl_errors());
  return bio;
}

// Key files must never prompt on a terminal.
int refuse_passphrase(char*, int, int, void*) {
  return -1;
}

// Every certificate of the PEM bundle; ERR state is cleared after the
// expected end-of-input error.
std::vector<X509Ptr> read_certificates(const std::string& pem) {
  std::vector<X509Ptr> out;
  BioPtr bio = memory_bio(pem);
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, refuse_passphrase, nullptr))
    out.emplace_back(cert);
  ERR_clear_error();
  return out;
}

void trust_ca(SSL_CTX* ctx, const ApiConfig& config) {
  const auto certs = read_certificates(config.ca_pem);
  if (certs.empty())
    throw ApiConfigError(config.origin + ": the CA data holds no PEM certificate");
  X509_STORE* store = SSL_CTX_get_cert_store(ctx);
  for (const auto& cert : certs) {
    if (X509_STORE_add_cert(store, cert.get()) != 1) {
      // A bundle may repeat a certificate; that is not an error.
      const unsigned long code = ERR_peek_last_error();
      if (ERR_GET_REASON(code) != X509_R_CERT_ALREADY_IN_HASH_TABLE)
        throw ApiConfigError(config.origin + ": cannot trust the CA: " + openssl_errors());
      ERR_clear_error();
    }
  }
}

// Messages name what is wrong without saying whose certificate it is; the
// callers add that.
void use_client_certificate(SSL_CTX* ctx, const std::string& cert_pem, const std::string& key_pem) {
  auto certs = read_certificates(cert_pem);
  if (certs.empty())
    throw ClientCertificateError("the client certificate holds no PEM certificate");
  if (SSL_CTX_use_certificate(ctx, certs.front().get()) != 1)
    throw ClientCertificateError("cannot use the client certificate: " + openssl_errors());
  for (size_t i = 1; i < certs.size(); ++i) {
    // add1: the context takes its own reference.
    if (SSL_CTX_add1_chain_cert(ctx, certs[i].get()) != 1)
      throw ClientCertificateError("cannot use the client certificate chain: " + openssl_errors());
  }
  BioPtr bio = memory_bio(key_pem);
  KeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, refuse_passphrase, nullptr));
  if (!key) {
    throw ClientCertificateError("the client key is not an unencrypted PEM private key: " +
                                 openssl_errors());
  }
  if (SSL_CTX_use_PrivateKey(ctx, key.get()) != 1 || SSL_CTX_check_private_key(ctx) != 1) {
    throw ClientCertificateError("the client key does not match the client certificate: " +
                                 openssl_errors());
  }
}

void verify_peer(SSL_CTX* ctx, const ApiConfig& config, const std::string& verify_name) {
  X509_VERIFY_PARAM* param = SSL_CTX_get0_param(ctx);
  const std::string name = verify_name.size() > 2 && verify_name.front() == '['
                               ? verify_name.substr(1, verify_name.size() - 2)
                               : verify_name;
  // An IP literal must match an IP SAN; a name a DNS SAN.
  if (X509_VERIFY_PARAM_set1_ip_asc(param, name.c_str()) != 1) {
    ERR_clear_error();
    X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    if (X509_VERIFY_PARAM_set1_host(param, name.c_str(), name.size()) != 1)
      throw ApiConfigError(config.origin + ": cannot verify against server name \"" + name +
                           "\": " + openssl_errors());
  }
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
}

}  // namespace

Poco::Net::Context::Ptr make_client_tls(const ApiConfig& config, const std::string& verify_name) {
  try {
    return make_client_tls(config, verify_name, config.client_cert_pem, config.client_key_pem);
  } catch (const ClientCertificateError& e) {
    throw ApiConfigError(config.origin + ": " + e.what());
  }
}

void check_client_certificate(const std::string& cert_pem, const std::string& key_pem) {
  struct CtxFree {
    void operator()(SSL_CTX* c) const { SSL_CTX_free(c); }
  };
  const std::unique_ptr<SSL_CTX, CtxFree> ctx(SSL_CTX_new(TLS_client_method()));
  if (!ctx)
    throw ApiConfigError("cannot create a TLS context: " + openssl_errors());
  use_client_certificate(ctx.get(), cert_pem, key_pem);
}

Poco::Net::Context::Ptr make_client_tls(const ApiConfig& config, const std::string& verify_name,
                                        const std::string& cert_pem, const std::string& key_pem) {
  Poco::Net::Context::Params params;
  params.verificationMode = config.insecure_skip_verify ? Poco::Net::Context::VERIFY_NONE
                                                        : Poco::Net::Context::VERIFY_RELAXED;
  params.loadDefaultCAs = config.ca_pem.empty() && !config.insecure_skip_verify;
  Poco::Net::Context::Ptr context;
  try {
    context = Poco::makeAuto<Poco::Net::Context>(Poco::Net::Context::TLS_CLIENT_USE, params);
  } catch (const Poco::Exception& e) {
    throw ApiConfigError(config.origin + ": cannot create the TLS context: " + e.displayText());
  }
  SSL_CTX* ctx = context->sslContext();
  if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1)
    throw ApiConfigError(config.origin + ": cannot require TLS 1.2: " + openssl_errors());
  SSL_CTX_set_default_passwd_cb(ctx, refuse_passphrase);
  context->enableExtendedCertificateVerification(false);
  if (!config.ca_pem.empty())
    trust_ca(ctx, config);
  if (!cert_pem.empty() || !key_pem.empty()) {
    use_client_certificate(ctx, cert_pem, key_pem);
  }
  if (config.insecure_skip_verify) {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
  } else {
    verify_peer(ctx, config, verify_name);
  }
  return context;
}

}  // namespace hami::kube
