// RAII owners for the OpenSSL objects the server creates, and the text of
// OpenSSL's error queue for messages.
#pragma once

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include <memory>
#include <string>

namespace hami::server {

struct EvpPkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct X509Free {
  void operator()(X509* p) const { X509_free(p); }
};
struct BioFree {
  void operator()(BIO* p) const { BIO_free(p); }
};

using EvpPkeyPtr = std::unique_ptr<EVP_PKEY, EvpPkeyFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;
using BioPtr = std::unique_ptr<BIO, BioFree>;

// Drains OpenSSL's thread-local error queue into one line ("unknown error"
// when empty).
std::string openssl_errors();

// PEM text of a certificate.
std::string certificate_pem(X509* cert);

// SHA-256 fingerprint as upper-case hex pairs joined by ':'.
std::string certificate_sha256(X509* cert);

}  // namespace hami::server
