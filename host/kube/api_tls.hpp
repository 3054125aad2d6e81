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

}  // namespace hami::kube
