// The Secret of tls.selfManaged as JSON: reading what the API server holds
// and writing what is created or updated.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "webhook_tls/tls_bundle.hpp"

namespace hami::webhook_tls {

inline constexpr const char* kTlsSecretType = "kubernetes.io/tls";

// The reply is not a Secret object (not JSON, not an object, no metadata).
class SecretFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct StoredSecret {
  std::string resource_version;
  std::string type;  // "" when absent (the API server's default is Opaque)
  // Every data value that is present and decodes; a key whose value is
  // not base64 (or not a string) is left empty and named in `problem`.
  TlsBundle bundle;
  std::string problem;
};

// Throws SecretFormatError.
StoredSecret parse_secret(std::string_view json);

// A new Secret `ns`/`name` of type kubernetes.io/tls holding `bundle`,
// labelled app.kubernetes.io/managed-by: hami-scheduler.
std::string new_secret_json(const std::string& ns, const std::string& name,
                            const TlsBundle& bundle);

// `existing` (the object as read, its resourceVersion the update's
// precondition) with its four data keys replaced by `bundle`; other data
// keys, labels and annotations are kept. Throws SecretFormatError.
std::string updated_secret_json(std::string_view existing, const TlsBundle& bundle);

}  // namespace hami::webhook_tls
