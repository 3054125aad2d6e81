// PEM text ↔ OpenSSL objects for the bundle's certificates and keys.
#pragma once

#include <string>
#include <string_view>

#include "server/openssl_handles.hpp"

namespace hami::webhook_tls {

// The first certificate of `pem`; null when there is none or it does not
// parse (OpenSSL's error queue is cleared).
server::X509Ptr read_certificate(std::string_view pem);

// An unencrypted private key (PKCS#8 or traditional); null otherwise.
server::EvpPkeyPtr read_private_key(std::string_view pem);

// PKCS#8 PEM of `key`; throws std::runtime_error with OpenSSL's reason.
std::string private_key_pem(EVP_PKEY* key);

}  // namespace hami::webhook_tls
