// Shared pieces of the tls.selfManaged tests: a fake API server holding the
// webhook configuration, API clients on it, the config, and readers of what
// ended up stored.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "config/host_config.hpp"
#include "fake_apiserver.hpp"
#include "kube/api_client.hpp"
#include "log/logger.hpp"
#include "platform/base64.hpp"
#include "webhook_tls/tls_bundle.hpp"

namespace hami::webhook_tls::test {

using json = nlohmann::json;
using namespace std::chrono_literals;

inline constexpr const char* kNamespace = "kube-system";
inline constexpr const char* kSecret = "hami-tls";
inline constexpr const char* kService = "hami-admission";
inline constexpr const char* kWebhooks = "hami-admission";
inline constexpr const char* kSecretPath = "/api/v1/namespaces/kube-system/secrets";
inline constexpr const char* kWebhooksPath =
    "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/hami-admission";

inline config::SelfManagedTlsConfig self_managed_config() {
  config::SelfManagedTlsConfig c;
  c.secret = kSecret;
  c.secret_namespace = kNamespace;
  c.service = kService;
  c.webhook_configuration = kWebhooks;
  c.ip_addresses = {"127.0.0.1"};
  return c;
}

// The MutatingWebhookConfiguration as the chart renders it (no caBundle),
// with a second webhook that calls another service.
inline std::string webhook_configuration() {
  const json ours = {
      {"name", "pod.vgpu.admission.local"},
      {"clientConfig",
       {{"service", {{"name", kService}, {"namespace", kNamespace}, {"path", "/mutate-pod"}}}}}};
  const json theirs = {
      {"name", "other.example.com"},
      {"clientConfig",
       {{"service", {{"name", "other"}, {"namespace", kNamespace}}}, {"caBundle", "b3RoZXI="}}}};
  return json{{"apiVersion", "admissionregistration.k8s.io/v1"},
              {"kind", "MutatingWebhookConfiguration"},
              {"metadata", {{"name", kWebhooks}}},
              {"webhooks", json::array({theirs, ours})}}
      .dump();
}

inline std::shared_ptr<kube::ApiClient> client_of(const hami::testing::FakeApiServer& fake) {
  kube::ApiConfig config;
  config.server = fake.url();
  config.origin = "test";
  config.namespace_ = "default";
  config.qps = 0;
  config.request_timeout = 5s;
  config.max_retries = 3;
  return std::make_shared<kube::ApiClient>(std::move(config));
}

inline json stored_secret(const hami::testing::FakeApiServer& fake) {
  const auto text = fake.object("Secret", kNamespace, kSecret);
  return text ? json::parse(*text) : json();
}

// The bundle stored in the Secret (empty pieces when absent).
inline TlsBundle secret_bundle(const hami::testing::FakeApiServer& fake) {
  const json s = stored_secret(fake);
  TlsBundle b;
  if (s.is_null())
    return b;
  const auto piece = [&](const char* key) {
    return s["data"].contains(key)
               ? platform::base64_decode(s["data"][key].get<std::string>()).value_or("<bad base64>")
               : std::string();
  };
  b.cert_pem = piece(kCertKey);
  b.key_pem = piece(kKeyKey);
  b.ca_pem = piece(kCaKey);
  b.ca_key_pem = piece(kCaKeyKey);
  return b;
}

// The decoded caBundle of webhook `index` ("" when unset).
inline std::string ca_bundle(const hami::testing::FakeApiServer& fake, size_t index) {
  const auto text = fake.object("MutatingWebhookConfiguration", "", kWebhooks);
  if (!text)
    return "<no configuration>";
  const json c = json::parse(*text)["webhooks"][index]["clientConfig"];
  return c.contains("caBundle")
             ? platform::base64_decode(c["caBundle"].get<std::string>()).value_or("<bad>")
             : "";
}

// Writes (POST, PUT, PATCH) sent to paths starting with `prefix`.
inline size_t writes_to(const hami::testing::FakeApiServer& fake, const std::string& prefix) {
  size_t n = 0;
  for (const auto& r : fake.requests()) {
    if (r.method != "GET" && r.path.rfind(prefix, 0) == 0)
      ++n;
  }
  return n;
}

template <typename F>
bool eventually(F done, std::chrono::milliseconds limit = 20s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

}  // namespace hami::webhook_tls::test
