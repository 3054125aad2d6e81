// Making the certificates of tls.selfManaged with OpenSSL: EC P-256 keys,
// SHA-256 signatures, random 127-bit serials, notBefore an hour ago (clock
// skew between replicas and the API server).
//   CA:      self-signed, basicConstraints critical CA:TRUE pathlen 0,
//            keyUsage critical keyCertSign cRLSign digitalSignature;
//   serving: signed by the CA, subjectAltName = the names, basicConstraints
//            critical CA:FALSE, keyUsage critical digitalSignature,
//            extendedKeyUsage serverAuth, CN the first name; its notAfter
//            never goes past the CA's.
#pragma once

#include <chrono>
#include <ctime>
#include <stdexcept>
#include <string>

#include "webhook_tls/tls_bundle.hpp"

namespace hami::webhook_tls {

// A certificate could not be made (OpenSSL's reason in the message) or the
// CA given cannot be used.
class IssueError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct IssuedCa {
  std::string cert_pem;
  std::string key_pem;
};

// A new CA named `common_name`, valid for `days` from `now`.
IssuedCa issue_ca(const std::string& common_name, int days, std::time_t now = std::time(nullptr));

// A new key and serving certificate for `names`, valid for `days` from
// `now` (at most until the CA's notAfter), signed by `ca_cert_pem` /
// `ca_key_pem`. The result carries the CA's PEMs as given.
TlsBundle issue_serving(const std::string& ca_cert_pem, const std::string& ca_key_pem,
                        const ServingNames& names, int days, std::time_t now = std::time(nullptr));

}  // namespace hami::webhook_tls
