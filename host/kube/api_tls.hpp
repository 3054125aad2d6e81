// The client TLS context of an ApiClient, built from an ApiConfig: trust
// from the config's CA PEM (or the system store when it is empty), the
// client certificate and key from PEM, TLS 1.2+, and OpenSSL's own peer
// verification including the server name — not Poco's, which would consult
// the process-wide SSLManager and skips the name check for localhost.
#pragma once

#include <Poco/Net/Context.h>

#include <string>

#include "kube/api_config.hpp"

namespace hami::kube {

// `verify_name` is the name (or IP literal) the server certificate must
// carry: the config's tls_server_name, else the host of its server URL.
// Throws ApiConfigError when a PEM cannot be used.
Poco::Net::Context::Ptr make_client_tls(const ApiConfig& config, const std::string& verify_name);

// The client certificate (with its chain) and key given to make_client_tls
// could not be used; the message says why, without saying whose they are.
class ClientCertificateError : public ApiConfigError {
 public:
  using ApiConfigError::ApiConfigError;
};

// The same context with another client certificate and key (PEM; both
// empty: none) than the config's: an exec plugin's. Throws
// ClientCertificateError for the certificate and key, ApiConfigError
// (naming config.origin) for the rest.
Poco::Net::Context::Ptr make_client_tls(const ApiConfig& config, const std::string& verify_name,
                                        const std::string& cert_pem, const std::string& key_pem);

// Whether a client certificate (PEM, the leaf first) and its unencrypted
// PEM key can be used: both parse and the key matches. Throws
// ClientCertificateError.
void check_client_certificate(const std::string& cert_pem, const std::string& key_pem);

}  // namespace hami::kube
