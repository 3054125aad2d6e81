#include "webhook_tls/self_managed_tls.hpp"

#include <cstdlib>
#include <optional>

#include "kube/secret_api.hpp"
#include "kube/webhook_configuration_api.hpp"
#include "webhook_tls/bundle_check.hpp"
#include "webhook_tls/ca_bundle_patch.hpp"
#include "webhook_tls/certificate_issuer.hpp"
#include "webhook_tls/pem_objects.hpp"
#include "webhook_tls/tls_secret.hpp"

namespace hami::webhook_tls {
namespace {

constexpr const char* kPrefix = "tls.selfManaged: ";

std::string api_error_text(const kube::ApiError& e) {
  if (e.status() == 0)
    return e.message();
  std::string out = std::to_string(e.status());
  if (!e.reason().empty())
    out += " " + e.reason();
  return out + ": " + e.message();
}

[[noreturn]] void fail(const std::string& what) {
  throw SelfManagedTlsError(kPrefix + what);
}

std::string not_after_text(const std::string& cert_pem) {
  const auto cert = read_certificate(cert_pem);
  if (!cert)
    return "?";
  std::tm tm{};
  if (ASN1_TIME_to_tm(X509_get0_notAfter(cert.get()), &tm) != 1)
    return "?";
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string fingerprint(const std::string& cert_pem) {
  const auto cert = read_certificate(cert_pem);
  return cert ? server::certificate_sha256(cert.get()) : "?";
}

}  // namespace

std::string self_managed_namespace(const config::SelfManagedTlsConfig& config,
                                   const std::string& client_namespace) {
  if (!config.secret_namespace.empty())
    return config.secret_namespace;
  if (const char* pod = std::getenv("POD_NAMESPACE"); pod != nullptr && *pod != '\0')
    return pod;
  return client_namespace;
}

ServingNames serving_names(const config::SelfManagedTlsConfig& config, const std::string& ns) {
  ServingNames names;
  names.dns = config.dns_names;
  if (names.dns.empty()) {
    const std::string& svc = config.service;
    names.dns = {svc, svc + "." + ns, svc + "." + ns + ".svc",
                 svc + "." + ns + ".svc.cluster.local"};
  }
  names.ip = config.ip_addresses;
  return names;
}

SelfManagedTls::SelfManagedTls(const config::SelfManagedTlsConfig& config,
                               std::shared_ptr<kube::ApiClient> api, const log::Logger& logger)
    : config_(config),
      api_(std::move(api)),
      logger_(logger),
      namespace_(self_managed_namespace(config_, api_->config().namespace_)),
      names_(serving_names(config_, namespace_)),
      files_(config_.directory) {
  reconcile();
}

SelfManagedTls::~SelfManagedTls() {
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
}

config::TlsConfig SelfManagedTls::serving_config(const config::TlsConfig& base) const {
  config::TlsConfig out = base;
  out.cert_file = files_.cert_file();
  out.key_file = files_.key_file();
  out.self_signed = false;
  return out;
}

TlsBundle SelfManagedTls::current() const {
  const std::lock_guard lock(mutex_);
  return current_;
}

void SelfManagedTls::start() {
  if (thread_.joinable())
    return;
  thread_ = std::jthread([this](std::stop_token stop) { run(std::move(stop)); });
}

void SelfManagedTls::run(std::stop_token stop) {
  const std::chrono::seconds interval{config_.check_interval_seconds};
  std::chrono::seconds wait = interval;
  std::mutex m;
  while (!stop.stop_requested()) {
    {
      std::unique_lock lock(m);
      // Wakes early only when a stop is requested.
      (void)wake_.wait_for(lock, stop, wait, [] { return false; });
      if (stop.stop_requested())
        return;
    }
    try {
      reconcile();
      wait = interval;
    } catch (const std::exception& e) {
      wait = std::min(interval, std::chrono::seconds(kRetryAfterFailure));
      logger_.error(std::string(e.what()) + "; keeping the current certificate",
                    {{"retry_in", std::to_string(wait.count()) + "s"}});
    }
  }
}

bool SelfManagedTls::reconcile() {
  const TlsBundle bundle = ensure_secret();
  ensure_ca_bundle(bundle.ca_pem);
  {
    const std::lock_guard lock(mutex_);
    if (bundle == current_)
      return false;
  }
  try {
    files_.write(bundle);
  } catch (const std::runtime_error& e) {
    fail(e.what());
  }
  {
    const std::lock_guard lock(mutex_);
    current_ = bundle;
  }
  logger_.info("serving the self-managed webhook certificate",
               {{"secret", namespace_ + "/" + config_.secret},
                {"not_after", not_after_text(bundle.cert_pem)},
                {"sha256", fingerprint(bundle.cert_pem)},
                {"folder", files_.directory().string()}});
  return true;
}

TlsBundle SelfManagedTls::ensure_secret() {
  const std::string where = "Secret " + namespace_ + "/" + config_.secret;
  const std::chrono::seconds renew_before{int64_t{config_.renew_before_days} * 86400};
  for (int attempt = 1; attempt <= kMaxAttempts; ++attempt) {
    std::optional<std::string> text;
    try {
      text = kube::get_secret(*api_, namespace_, config_.secret);
    } catch (const kube::ApiError& e) {
      fail("cannot read " + where + ": " + api_error_text(e));
    }
    BundleVerdict verdict{BundleAction::new_ca, "it does not exist"};
    StoredSecret stored;
    if (text) {
      try {
        stored = parse_secret(*text);
      } catch (const SecretFormatError& e) {
        fail("cannot read " + where + ": " + e.what());
      }
      if (!stored.type.empty() && stored.type != kTlsSecretType) {
        fail(where + " has type " + stored.type + ", not " + kTlsSecretType +
             " (a Secret's type cannot be changed: delete it, or name another in "
             "tls.selfManaged.secret)");
      }
      verdict = check_bundle(stored.bundle, names_, renew_before);
      if (verdict.action == BundleAction::keep)
        return stored.bundle;
      if (!stored.problem.empty())
        verdict.reason = stored.problem + "; " + verdict.reason;
    }
    TlsBundle bundle;
    try {
      if (verdict.action == BundleAction::reissue_leaf) {
        bundle = issue_serving(stored.bundle.ca_pem, stored.bundle.ca_key_pem, names_,
                               config_.leaf_days);
      } else {
        const IssuedCa ca = issue_ca(
            "hami-scheduler webhook CA " + namespace_ + "/" + config_.secret, config_.ca_days);
        bundle = issue_serving(ca.cert_pem, ca.key_pem, names_, config_.leaf_days);
      }
    } catch (const std::runtime_error& e) {
      fail(e.what());
    }
    logger_.info(verdict.action == BundleAction::reissue_leaf
                     ? "issuing a new serving certificate with the CA of the Secret"
                     : "issuing a new CA and serving certificate",
                 {{"secret", namespace_ + "/" + config_.secret}, {"why", verdict.reason}});
    try {
      if (text) {
        kube::update_secret(*api_, namespace_, config_.secret, updated_secret_json(*text, bundle));
      } else {
        kube::create_secret(*api_, namespace_, new_secret_json(namespace_, config_.secret, bundle));
      }
      return bundle;
    } catch (const kube::ApiError& e) {
      if (e.status() != 409)
        fail(std::string("cannot ") + (text ? "update " : "create ") + where + ": " +
             api_error_text(e));
      logger_.info(
          "the Secret was written by another replica first; reading it again",
          {{"secret", namespace_ + "/" + config_.secret}, {"attempt", std::to_string(attempt)}});
    } catch (const SecretFormatError& e) {
      fail("cannot update " + where + ": " + e.what());
    }
  }
  fail(where + ": still conflicting after " + std::to_string(kMaxAttempts) + " attempts");
}

void SelfManagedTls::ensure_ca_bundle(const std::string& ca_pem) {
  if (config_.webhook_configuration.empty())
    return;
  const std::string where = "MutatingWebhookConfiguration " + config_.webhook_configuration;
  std::string last_conflict;
  for (int attempt = 1; attempt <= kMaxAttempts; ++attempt) {
    std::optional<std::string> text;
    try {
      text = kube::get_mutating_webhook_configuration(*api_, config_.webhook_configuration);
    } catch (const kube::ApiError& e) {
      fail("cannot read " + where + ": " + api_error_text(e));
    }
    if (!text)
      fail(where + " not found");
    WebhookTarget target{namespace_, config_.service, names_.dns};
    target.url_hosts.insert(target.url_hosts.end(), names_.ip.begin(), names_.ip.end());
    CaBundlePatch patch;
    try {
      patch = ca_bundle_patch(*text, target, ca_pem);
    } catch (const WebhookConfigurationFormatError& e) {
      fail("cannot read " + where + ": " + e.what());
    }
    if (patch.matched == 0) {
      fail(where + " has no webhook calling service " + namespace_ + "/" + config_.service +
           " or a URL naming this certificate's hosts");
    }
    if (patch.outdated == 0)
      return;
    try {
      kube::patch_mutating_webhook_configuration(*api_, config_.webhook_configuration, patch.json);
      logger_.info("set the caBundle of the webhook configuration",
                   {{"configuration", config_.webhook_configuration},
                    {"webhooks", std::to_string(patch.outdated)}});
      return;
    } catch (const kube::ApiError& e) {
      // 422: the resourceVersion test failed (the object changed since it
      // was read); 409: an update raced. Read again.
      if (e.status() != 409 && e.status() != 422)
        fail("cannot patch " + where + ": " + api_error_text(e));
      last_conflict = api_error_text(e);
    }
  }
  fail("cannot patch " + where + ": still changing after " + std::to_string(kMaxAttempts) +
       " attempts (" + last_conflict + ")");
}

}  // namespace hami::webhook_tls
