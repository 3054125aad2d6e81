// ApiConfig: how to reach the Kubernetes API server — address, TLS trust,
// client credentials, and the client-side limits. Built from the pod's
// service account (in-cluster) or from a kubeconfig file.
//
// Resolution order of resolve_api_config(): an explicit kubeconfig path;
// else in-cluster when KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT
// are both set; else $KUBECONFIG (first file of the list); else
// $HOME/.kube/config. Failures throw ApiConfigError naming the file and the
// key at fault.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "kube/token_source.hpp"

namespace hami::kube {

class ApiConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ExecCredentialSource;  // exec_credential_source.hpp

struct ApiConfig {
  std::string server;  // "https://10.96.0.1:443", "https://[fd00::1]:6443"; http:// only in tests
  std::string ca_pem;  // PEM bundle that signs the server certificate; empty: system store
  std::string tls_server_name;        // SNI / verification name override; empty: host of `server`
  bool insecure_skip_verify = false;  // kubeconfig insecure-skip-tls-verify (logged as a warning)
  std::string client_cert_pem;        // client certificate (with key_pem), empty: none
  std::string client_key_pem;
  std::shared_ptr<TokenSource> token;  // bearer token; null: none
  // An exec user's plugin (whose token is `token`, an ExecTokenSource over
  // the same source): the client certificate it returns, if any, is
  // presented on every new connection; null: none.
  std::shared_ptr<ExecCredentialSource> exec_credentials;
  std::string basic_username;  // kubeconfig username/password (rare); empty: none
  std::string basic_password;
  std::string namespace_ = "default";  // the pod's namespace or the context's namespace
  std::string origin;                  // "in-cluster" or the kubeconfig path + context, for logs

  // Client-side token bucket; qps <= 0 disables it.
  double qps = 20.0;
  int burst = 40;
  // Timeout of ordinary requests (connect + whole reply); watches are exempt
  // and use their own server-side timeoutSeconds.
  std::chrono::milliseconds request_timeout{std::chrono::seconds(30)};
  // Attempts of a request answered 429/5xx with Retry-After (client-go: 10).
  int max_retries = 10;
};

// Environment access, replaceable in tests.
using GetEnv = std::function<std::optional<std::string>(const std::string&)>;
GetEnv process_environment();

// In-cluster: https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT
// (IPv6 literal bracketed), token/ca.crt/namespace read from `account_dir`.
// The token is a FileTokenSource (re-read while the file changes).
ApiConfig in_cluster_config(const GetEnv& env, const std::filesystem::path& account_dir =
                                                   "/var/run/secrets/kubernetes.io/serviceaccount");

// A kubeconfig file (clientcmd v1): current-context (or `context` when not
// empty) → cluster (server, certificate-authority[-data],
// insecure-skip-tls-verify, tls-server-name) and user (client-certificate
// [-data], client-key[-data], token, tokenFile, username/password, or an
// `exec` credential plugin run as client-go does: exec_credential_source.hpp).
// Relative paths resolve against the kubeconfig's folder. `auth-provider`
// users, exec plugins for an http:// server or with interactiveMode Always
// are refused with an ApiConfigError saying so.
ApiConfig load_kubeconfig(const std::filesystem::path& file, const std::string& context = {});

// See the resolution order above. `kubeconfig` empty: automatic.
ApiConfig resolve_api_config(const std::filesystem::path& kubeconfig, const GetEnv& env);

}  // namespace hami::kube
