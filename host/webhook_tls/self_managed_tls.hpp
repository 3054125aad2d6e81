// SelfManagedTls: tls.selfManaged — the webhook listener's certificate,
// made and kept by the host itself instead of cert-manager.
//
// One reconcile:
//  1. read the Secret <namespace>/<secret>. Kept as it is when its serving
//     certificate can be served (bundle_check.hpp: valid beyond the renewal
//     window, exactly the configured names, signed by ca.crt). Otherwise a
//     new serving certificate is issued by the CA in the Secret when that CA
//     can still sign (ca.crt and ca.key valid beyond the window: the
//     caBundle does not change), else a new CA and serving certificate;
//  2. store them: create when the Secret is missing, else update under the
//     resourceVersion read. A 409 means another replica wrote first: read
//     again and use theirs when it is good (so replicas starting at once
//     converge on one certificate). At most kMaxAttempts rounds;
//  3. when webhookConfiguration is set, set the CA as caBundle of every
//     webhook of that MutatingWebhookConfiguration whose clientConfig.service
//     is <namespace>/<service> (others are left alone), with a JSON Patch
//     guarded by a `test` of the resourceVersion; a refused test is read
//     again, within kMaxAttempts;
//  4. when the bundle differs from the one served, write it to the serving
//     files (serving_files.hpp), which the listener's CertificateReloader
//     picks up for new handshakes.
// The constructor runs the first reconcile, so a host that cannot get a
// good certificate never serves. start() then re-runs it every
// checkIntervalSeconds on a thread of its own (after a failure, within a
// minute), rotating before expiry and picking up a Secret another replica
// changed; a failed re-check is logged and the current certificate kept.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <thread>

#include "config/host_config.hpp"
#include "kube/api_client.hpp"
#include "log/logger.hpp"
#include "webhook_tls/serving_files.hpp"
#include "webhook_tls/tls_bundle.hpp"

namespace hami::webhook_tls {

// A reconcile failed; the message names the object and the cause, e.g.
// "tls.selfManaged: cannot read Secret kube-system/hami-tls: 403 Forbidden: ...".
class SelfManagedTlsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr int kMaxAttempts = 8;
inline constexpr std::chrono::seconds kRetryAfterFailure{60};

// The namespace of the Secret and Service: the configured one, else
// $POD_NAMESPACE, else `client_namespace` (the API client's: in-cluster,
// the pod's).
std::string self_managed_namespace(const config::SelfManagedTlsConfig& config,
                                   const std::string& client_namespace);

// The names the serving certificate carries: dnsNames (or the Service's
// four names) and ipAddresses.
ServingNames serving_names(const config::SelfManagedTlsConfig& config, const std::string& ns);

class SelfManagedTls {
 public:
  // Throws SelfManagedTlsError (or std::runtime_error when the serving
  // folder cannot be made).
  SelfManagedTls(const config::SelfManagedTlsConfig& config, std::shared_ptr<kube::ApiClient> api,
                 const log::Logger& logger);
  ~SelfManagedTls();  // stops the re-checks
  SelfManagedTls(const SelfManagedTls&) = delete;
  SelfManagedTls& operator=(const SelfManagedTls&) = delete;

  // `base` (the webhook listener's tls) serving the files written here.
  config::TlsConfig serving_config(const config::TlsConfig& base) const;

  // Starts the periodic re-checks (once).
  void start();

  // One reconcile now; true when the served bundle changed. Throws
  // SelfManagedTlsError. Not to be called while start()'s thread runs.
  bool reconcile();

  TlsBundle current() const;
  const std::string& secret_namespace() const { return namespace_; }
  const ServingFiles& files() const { return files_; }

 private:
  TlsBundle ensure_secret();
  void ensure_ca_bundle(const std::string& ca_pem);
  void run(std::stop_token stop);

  config::SelfManagedTlsConfig config_;
  std::shared_ptr<kube::ApiClient> api_;
  const log::Logger& logger_;
  std::string namespace_;
  ServingNames names_;
  ServingFiles files_;
  mutable std::mutex mutex_;
  TlsBundle current_;
  std::condition_variable_any wake_;
  std::jthread thread_;  // last: stopped and joined first
};

}  // namespace hami::webhook_tls
