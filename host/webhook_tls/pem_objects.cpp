#include "webhook_tls/pem_objects.hpp"

#include <openssl/err.h>
#include <openssl/pem.h>

#include <climits>
#include <stdexcept>

namespace hami::webhook_tls {
namespace {

server::BioPtr memory_bio(std::string_view pem) {
  if (pem.size() > static_cast<size_t>(INT_MAX))
    return nullptr;
  return server::BioPtr(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

}  // namespace

server::X509Ptr read_certificate(std::string_view pem) {
  const auto bio = memory_bio(pem);
  server::X509Ptr cert;
  if (bio)
    cert.reset(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  ERR_clear_error();
  return cert;
}

server::EvpPkeyPtr read_private_key(std::string_view pem) {
  const auto bio = memory_bio(pem);
  server::EvpPkeyPtr key;
  // An empty passphrase callback result: an encrypted key fails instead of
  // prompting on the terminal.
  const auto no_passphrase = [](char*, int, int, void*) { return 0; };
  if (bio)
    key.reset(PEM_read_bio_PrivateKey(bio.get(), nullptr, no_passphrase, nullptr));
  ERR_clear_error();
  return key;
}

std::string private_key_pem(EVP_PKEY* key) {
  server::BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1)
    throw std::runtime_error("cannot write the private key as PEM: " + server::openssl_errors());
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(size));
}

}  // namespace hami::webhook_tls
