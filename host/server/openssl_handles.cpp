#include "server/openssl_handles.hpp"

#include <openssl/err.h>
#include <openssl/pem.h>

#include <cstdio>
#include <stdexcept>

namespace hami::server {

std::string openssl_errors() {
  std::string out;
  while (const unsigned long code = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(code, buf, sizeof buf);
    if (!out.empty())
      out += "; ";
    out += buf;
  }
  return out.empty() ? "unknown error" : out;
}

std::string certificate_pem(X509* cert) {
  const BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) {
    throw std::runtime_error("cannot encode certificate: " + openssl_errors());
  }
  char* data = nullptr;
  const long len = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(len));
}

std::string certificate_sha256(X509* cert) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (X509_digest(cert, EVP_sha256(), md, &len) != 1) {
    throw std::runtime_error("cannot hash certificate: " + openssl_errors());
  }
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    char hex[4];
    std::snprintf(hex, sizeof hex, "%02X", static_cast<unsigned>(md[i]));
    if (i > 0)
      out += ':';
    out += hex;
  }
  return out;
}

}  // namespace hami::server
