// A certificate authority made in memory for tests, and client
// certificates it signs (EC P-256, SHA-256), all as PEM text.
#pragma once

#include <openssl/bn.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <stdexcept>
#include <string>

#include "server/openssl_handles.hpp"

namespace hami::kube::testing {

struct PemPair {
  std::string certificate;
  std::string key;
};

class TestCa {
 public:
  explicit TestCa(const std::string& name = "test-ca") : key_(new_key()), cert_(X509_new()) {
    start(cert_.get(), name, key_.get());
    extend(cert_.get(), cert_.get(), NID_basic_constraints, "critical,CA:TRUE");
    extend(cert_.get(), cert_.get(), NID_key_usage, "critical,keyCertSign,cRLSign");
    if (X509_set_issuer_name(cert_.get(), X509_get_subject_name(cert_.get())) != 1)
      fail("issuer");
    sign(cert_.get());
  }

  std::string certificate_pem() const { return server::certificate_pem(cert_.get()); }

  // A client certificate for `common_name` and its key, signed by this CA.
  PemPair issue_client(const std::string& common_name) const {
    server::EvpPkeyPtr key = new_key();
    server::X509Ptr cert(X509_new());
    start(cert.get(), common_name, key.get());
    extend(cert.get(), cert_.get(), NID_basic_constraints, "critical,CA:FALSE");
    extend(cert.get(), cert_.get(), NID_key_usage, "critical,digitalSignature");
    extend(cert.get(), cert_.get(), NID_ext_key_usage, "clientAuth");
    if (X509_set_issuer_name(cert.get(), X509_get_subject_name(cert_.get())) != 1)
      fail("issuer");
    sign(cert.get());
    return PemPair{server::certificate_pem(cert.get()), key_pem(key.get())};
  }

 private:
  [[noreturn]] static void fail(const char* step) {
    throw std::runtime_error(std::string("TestCa: ") + step + ": " + server::openssl_errors());
  }

  static server::EvpPkeyPtr new_key() {
    server::EvpPkeyPtr key(EVP_EC_gen("P-256"));
    if (!key)
      fail("key");
    return key;
  }

  static std::string key_pem(EVP_PKEY* key) {
    server::BioPtr bio(BIO_new(BIO_s_mem()));
    if (!bio ||
        PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1)
      fail("key PEM");
    char* data = nullptr;
    const long size = BIO_get_mem_data(bio.get(), &data);
    return std::string(data, static_cast<size_t>(size));
  }

  // Version, serial, validity (an hour back, a day on), subject, key.
  static void start(X509* cert, const std::string& common_name, EVP_PKEY* key) {
    if (cert == nullptr || X509_set_version(cert, 2) != 1)
      fail("certificate");
    BIGNUM* bn = BN_new();
    const bool serial = bn != nullptr &&
                        BN_rand(bn, 64, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1 &&
                        BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert)) != nullptr;
    BN_free(bn);
    if (!serial)
      fail("serial");
    if (X509_gmtime_adj(X509_getm_notBefore(cert), -3600) == nullptr ||
        X509_gmtime_adj(X509_getm_notAfter(cert), 24 * 3600) == nullptr)
      fail("validity");
    if (X509_NAME_add_entry_by_txt(X509_get_subject_name(cert), "CN", MBSTRING_ASC,
                                   reinterpret_cast<const unsigned char*>(common_name.c_str()), -1,
                                   -1, 0) != 1)
      fail("subject");
    if (X509_set_pubkey(cert, key) != 1)
      fail("public key");
  }

  static void extend(X509* cert, X509* issuer, int nid, const char* value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
    if (ext == nullptr)
      fail("extension");
    const int ok = X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
    if (ok != 1)
      fail("extension");
  }

  void sign(X509* cert) const {
    if (X509_sign(cert, key_.get(), EVP_sha256()) <= 0)
      fail("signature");
  }

  server::EvpPkeyPtr key_;
  server::X509Ptr cert_;
};

}  // namespace hami::kube::testing
