// The PEM texts tls.selfManaged keeps in its Secret (type
// kubernetes.io/tls): the serving certificate and key, the CA certificate
// that signed it (the webhook's caBundle), and the CA's key, kept so a new
// serving certificate can be issued without changing the caBundle.
#pragma once

#include <string>
#include <vector>

namespace hami::webhook_tls {

// Secret data keys.
inline constexpr const char* kCertKey = "tls.crt";
inline constexpr const char* kKeyKey = "tls.key";
inline constexpr const char* kCaKey = "ca.crt";
inline constexpr const char* kCaKeyKey = "ca.key";

struct TlsBundle {
  std::string cert_pem;    // tls.crt: the serving certificate
  std::string key_pem;     // tls.key: its private key
  std::string ca_pem;      // ca.crt: the CA certificate
  std::string ca_key_pem;  // ca.key: the CA's private key; may be empty
  bool operator==(const TlsBundle&) const = default;
};

// The names a serving certificate must carry: subjectAltName DNS and IP
// entries (IPs as inet_ntop writes them).
struct ServingNames {
  std::vector<std::string> dns;
  std::vector<std::string> ip;
};

}  // namespace hami::webhook_tls
