// The ExecCredential documents of client-go credential plugins
// (client.authentication.k8s.io v1 and v1beta1): the one a helper prints on
// stdout, and the one passed to it in KUBERNETES_EXEC_INFO.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace hami::kube {

inline constexpr std::string_view kExecApiV1 = "client.authentication.k8s.io/v1";
inline constexpr std::string_view kExecApiV1beta1 = "client.authentication.k8s.io/v1beta1";

// What was wrong with a helper's output; the message names the field at
// fault, without saying which helper (the caller adds that).
class ExecCredentialError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// status of an ExecCredential: a bearer token, or a client certificate and
// key (PEM), or both.
struct ExecCredential {
  std::string token;
  std::string client_certificate_pem;
  std::string client_key_pem;
  std::optional<int64_t> expires_at;  // Unix seconds; nullopt: valid until rejected
};

// Parses a helper's stdout. kind must be ExecCredential and apiVersion the
// kubeconfig's exec.apiVersion (`api_version`); status must carry a token
// or both clientCertificateData and clientKeyData; expirationTimestamp,
// when set, is RFC 3339. Unknown fields are ignored, as client-go does.
// Throws ExecCredentialError.
ExecCredential parse_exec_credential(std::string_view json, std::string_view api_version);

// spec.cluster of KUBERNETES_EXEC_INFO (provideClusterInfo: true).
struct ExecClusterInfo {
  std::string server;
  std::string ca_pem;  // sent base64-encoded as certificate-authority-data; empty: omitted
  std::string tls_server_name;
  bool insecure_skip_verify = false;
};

// The KUBERNETES_EXEC_INFO value: an ExecCredential of `api_version` with
// spec.interactive false and spec.cluster when `cluster` is given.
std::string exec_info_json(std::string_view api_version,
                           const std::optional<ExecClusterInfo>& cluster);

}  // namespace hami::kube
