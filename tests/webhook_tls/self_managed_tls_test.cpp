// SelfManagedTls against the fake API server: the Secret is created,
// reused, renewed and replaced as the renewal rules say; replicas converge
// on one certificate through the API server's 409s; the caBundle is set on
// our webhooks only; API failures are errors that name what failed.
#include "webhook_tls/self_managed_tls.hpp"

#include <stdlib.h>

#include <fstream>
#include <future>
#include <sstream>

#include "tls_env.hpp"
#include "webhook_tls/bundle_check.hpp"
#include "webhook_tls/certificate_issuer.hpp"
#include "webhook_tls/tls_secret.hpp"

namespace hami::webhook_tls::test {
namespace {

using hami::testing::FakeApiServer;

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

struct SelfManagedTlsTest : ::testing::Test {
  SelfManagedTlsTest() { fake.apply(webhook_configuration()); }

  std::unique_ptr<SelfManagedTls> start(config::SelfManagedTlsConfig c = self_managed_config()) {
    return std::make_unique<SelfManagedTls>(c, client_of(fake), logger);
  }

  // The error a start ends with ("" when it succeeds).
  std::string start_error(config::SelfManagedTlsConfig c = self_managed_config()) {
    try {
      start(std::move(c));
      return "";
    } catch (const SelfManagedTlsError& e) {
      return e.what();
    }
  }

  // Stores a Secret holding `bundle`, as another replica would have.
  void store(const TlsBundle& bundle, const std::string& type = kTlsSecretType) {
    json s = json::parse(new_secret_json(kNamespace, kSecret, bundle));
    s["type"] = type;
    fake.apply(s.dump());
  }

  ServingNames names() const { return serving_names(self_managed_config(), kNamespace); }

  FakeApiServer fake;
  std::ostringstream log_sink;
  log::Logger logger{log::Level::info, log::Format::text, &log_sink};
};

TEST_F(SelfManagedTlsTest, FirstStartCreatesTheSecretAndSetsTheCaBundle) {
  auto tls = start();
  const TlsBundle stored = secret_bundle(fake);
  ASSERT_FALSE(stored.ca_pem.empty());
  EXPECT_EQ(stored_secret(fake)["type"], "kubernetes.io/tls");
  EXPECT_EQ(check_bundle(stored, names(), 30 * 86400s).action, BundleAction::keep);
  EXPECT_EQ(ca_bundle(fake, 1), stored.ca_pem);
  EXPECT_EQ(ca_bundle(fake, 0), "other");  // another service's webhook is left alone
  EXPECT_EQ(tls->current(), stored);
  // The files the listener serves.
  EXPECT_EQ(read_file(tls->files().cert_file()), stored.cert_pem);
  EXPECT_EQ(read_file(tls->files().key_file()), stored.key_pem);
  EXPECT_EQ(read_file(tls->files().ca_file()), stored.ca_pem);
  EXPECT_EQ(std::filesystem::status(tls->files().key_file()).permissions(),
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  const ServingNames got = certificate_names(stored.cert_pem);
  EXPECT_EQ(got.dns, (std::vector<std::string>{"hami-admission", "hami-admission.kube-system",
                                               "hami-admission.kube-system.svc",
                                               "hami-admission.kube-system.svc.cluster.local"}));
  EXPECT_EQ(got.ip, std::vector<std::string>{"127.0.0.1"});
  EXPECT_EQ(writes_to(fake, kSecretPath), 1u);
  EXPECT_EQ(writes_to(fake, kWebhooksPath), 1u);
  // The private folder goes with the object.
  const auto folder = tls->files().directory();
  EXPECT_TRUE(std::filesystem::exists(folder));
  tls.reset();
  EXPECT_FALSE(std::filesystem::exists(folder));
}

TEST_F(SelfManagedTlsTest, SecondStartReusesTheSecretWithoutWriting) {
  start();
  const TlsBundle first = secret_bundle(fake);
  fake.clear_requests();
  const auto again = start();
  EXPECT_EQ(again->current(), first);
  EXPECT_EQ(writes_to(fake, "/"), 0u);
  EXPECT_EQ(secret_bundle(fake), first);
}

TEST_F(SelfManagedTlsTest, ExpiringServingCertificateIsReissuedWithTheSameCa) {
  const IssuedCa ca = issue_ca("existing CA", 3650);
  const TlsBundle expiring = issue_serving(ca.cert_pem, ca.key_pem, names(), 10);
  store(expiring);
  // The webhook already trusts that CA.
  json configuration = json::parse(webhook_configuration());
  configuration["webhooks"][1]["clientConfig"]["caBundle"] = platform::base64_encode(ca.cert_pem);
  fake.apply(configuration.dump());
  fake.clear_requests();
  const auto tls = start();
  const TlsBundle renewed = secret_bundle(fake);
  EXPECT_NE(renewed.cert_pem, expiring.cert_pem);
  EXPECT_EQ(renewed.ca_pem, ca.cert_pem);
  EXPECT_EQ(renewed.ca_key_pem, ca.key_pem);
  EXPECT_EQ(check_bundle(renewed, names(), 30 * 86400s).action, BundleAction::keep);
  EXPECT_EQ(tls->current(), renewed);
  EXPECT_EQ(ca_bundle(fake, 1), ca.cert_pem);
  EXPECT_EQ(writes_to(fake, kWebhooksPath), 0u);  // caBundle unchanged: not patched
  size_t puts = 0;
  for (const auto& r : fake.requests())
    puts += r.method == "PUT" && r.path == std::string(kSecretPath) + "/" + kSecret;
  EXPECT_EQ(puts, 1u);
  EXPECT_EQ(writes_to(fake, kSecretPath), 1u);
}

TEST_F(SelfManagedTlsTest, SecretForOtherNamesIsReplaced) {
  const IssuedCa ca = issue_ca("existing CA", 3650);
  store(
      issue_serving(ca.cert_pem, ca.key_pem, ServingNames{{"someone-else.default.svc"}, {}}, 365));
  start();
  const TlsBundle replaced = secret_bundle(fake);
  EXPECT_EQ(certificate_names(replaced.cert_pem).dns.size(), 4u);
  EXPECT_EQ(replaced.ca_pem, ca.cert_pem);  // its CA could sign the new one
  EXPECT_EQ(ca_bundle(fake, 1), ca.cert_pem);
}

TEST_F(SelfManagedTlsTest, SecretWithoutUsableCaGetsANewCa) {
  TlsBundle broken;
  broken.cert_pem = "not a certificate";
  broken.ca_pem = "not a CA";
  store(broken);
  start();
  const TlsBundle replaced = secret_bundle(fake);
  EXPECT_NE(replaced.ca_pem, "not a CA");
  EXPECT_EQ(check_bundle(replaced, names(), 30 * 86400s).action, BundleAction::keep);
  EXPECT_EQ(ca_bundle(fake, 1), replaced.ca_pem);
}

TEST_F(SelfManagedTlsTest, CreateConflictRereadsAndUsesTheStoredSecret) {
  // The create is stored, but the reply is 409 as when another replica
  // created the Secret a moment earlier: the host reads and takes it.
  fake.fail_next_after_applying("POST", kSecretPath, 409);
  const auto tls = start();
  EXPECT_EQ(tls->current(), secret_bundle(fake));
  EXPECT_EQ(writes_to(fake, kSecretPath), 1u);
}

TEST_F(SelfManagedTlsTest, UpdateConflictRereads) {
  const IssuedCa ca = issue_ca("existing CA", 3650);
  store(issue_serving(ca.cert_pem, ca.key_pem, names(), 5));
  fake.fail_next("PUT", kSecretPath, 409);
  const auto tls = start();
  EXPECT_EQ(tls->current(), secret_bundle(fake));
  EXPECT_EQ(tls->current().ca_pem, ca.cert_pem);
  EXPECT_EQ(writes_to(fake, kSecretPath), 2u);
}

TEST_F(SelfManagedTlsTest, RefusedResourceVersionTestIsReadAgain) {
  fake.fail_next("PATCH", kWebhooksPath, 422);
  const auto tls = start();
  EXPECT_EQ(ca_bundle(fake, 1), tls->current().ca_pem);
  EXPECT_EQ(writes_to(fake, kWebhooksPath), 2u);
}

TEST_F(SelfManagedTlsTest, ReplicasStartingAtOnceConvergeOnOneSecret) {
  constexpr int kReplicas = 4;
  std::vector<std::future<TlsBundle>> replicas;
  for (int i = 0; i < kReplicas; ++i) {
    replicas.push_back(std::async(std::launch::async, [this] { return start()->current(); }));
  }
  std::vector<TlsBundle> served;
  for (auto& r : replicas)
    served.push_back(r.get());
  const TlsBundle stored = secret_bundle(fake);
  for (const auto& b : served)
    EXPECT_EQ(b, stored);
  EXPECT_EQ(ca_bundle(fake, 1), stored.ca_pem);
}

TEST_F(SelfManagedTlsTest, RecheckPicksUpASecretAnotherReplicaRenewed) {
  auto c = self_managed_config();
  c.check_interval_seconds = 1;
  const auto tls = start(c);
  tls->start();
  const TlsBundle first = tls->current();
  // Another replica renews the serving certificate with the same CA.
  const TlsBundle renewed = issue_serving(first.ca_pem, first.ca_key_pem, names(), 365);
  json s = stored_secret(fake);
  s["data"][kCertKey] = platform::base64_encode(renewed.cert_pem);
  s["data"][kKeyKey] = platform::base64_encode(renewed.key_pem);
  fake.apply(s.dump());
  ASSERT_TRUE(eventually([&] { return tls->current() == renewed; }));
  EXPECT_EQ(read_file(tls->files().cert_file()), renewed.cert_pem);
  EXPECT_EQ(read_file(tls->files().key_file()), renewed.key_pem);
}

TEST_F(SelfManagedTlsTest, FailedRecheckKeepsServingAndIsLogged) {
  auto c = self_managed_config();
  c.check_interval_seconds = 1;
  const auto tls = start(c);
  const TlsBundle first = tls->current();
  fake.fail_next("GET", kSecretPath, 403, 1000);
  tls->start();
  ASSERT_TRUE(eventually([&] {
    return log_sink.str().find("cannot read Secret kube-system/hami-tls: 403 Forbidden") !=
           std::string::npos;
  })) << log_sink.str();
  EXPECT_EQ(tls->current(), first);
  EXPECT_EQ(read_file(tls->files().cert_file()), first.cert_pem);
}

TEST_F(SelfManagedTlsTest, ApiErrorsNameWhatFailed) {
  fake.fail_next("GET", kSecretPath, 403);
  EXPECT_EQ(start_error(),
            "tls.selfManaged: cannot read Secret kube-system/hami-tls: 403 Forbidden: secrets "
            "\"hami-tls\" is forbidden: User \"system:anonymous\" cannot get resource "
            "\"secrets\" in API group \"\" in the namespace \"kube-system\"");
  fake.fail_next("POST", kSecretPath, 403);
  EXPECT_EQ(start_error(),
            "tls.selfManaged: cannot create Secret kube-system/hami-tls: 403 Forbidden: secrets is "
            "forbidden: User \"system:anonymous\" cannot create resource \"secrets\" in API "
            "group \"\" in the namespace \"kube-system\"");
  EXPECT_FALSE(fake.object("Secret", kNamespace, kSecret).has_value());
  fake.fail_next("PATCH", kWebhooksPath, 403);
  EXPECT_EQ(start_error(),
            "tls.selfManaged: cannot patch MutatingWebhookConfiguration hami-admission: 403 "
            "Forbidden: mutatingwebhookconfigurations.admissionregistration.k8s.io "
            "\"hami-admission\" is forbidden: User \"system:anonymous\" cannot patch resource "
            "\"mutatingwebhookconfigurations\" in API group \"admissionregistration.k8s.io\" at "
            "the cluster scope");
  fake.fail_next("PATCH", kWebhooksPath, 422, kMaxAttempts);
  EXPECT_EQ(start_error(),
            "tls.selfManaged: cannot patch MutatingWebhookConfiguration hami-admission: still "
            "changing after 8 attempts (422 Invalid: the server responded with the status code "
            "422)");
  fake.fail_next("GET", kWebhooksPath, 500);
  EXPECT_EQ(start_error(),
            "tls.selfManaged: cannot read MutatingWebhookConfiguration hami-admission: 500 "
            "InternalError: Internal error occurred: injected fault");
}

TEST_F(SelfManagedTlsTest, MissingOrForeignWebhookConfigurationIsAnError) {
  auto c = self_managed_config();
  c.webhook_configuration = "absent";
  EXPECT_EQ(start_error(c), "tls.selfManaged: MutatingWebhookConfiguration absent not found");
  c = self_managed_config();
  c.service = "not-ours";
  EXPECT_EQ(start_error(c),
            "tls.selfManaged: MutatingWebhookConfiguration hami-admission has no "
            "webhook calling service kube-system/not-ours or a URL naming this certificate's "
            "hosts");
  // Without webhookConfiguration nothing is patched.
  c = self_managed_config();
  c.webhook_configuration.clear();
  fake.clear_requests();
  start(c);
  EXPECT_EQ(writes_to(fake, kWebhooksPath), 0u);
}

TEST_F(SelfManagedTlsTest, SecretOfAnotherTypeIsAnError) {
  store(TlsBundle{}, "Opaque");
  EXPECT_EQ(start_error(),
            "tls.selfManaged: Secret kube-system/hami-tls has type Opaque, not kubernetes.io/tls "
            "(a Secret's type cannot be changed: delete it, or name another in "
            "tls.selfManaged.secret)");
}

TEST(SelfManagedNamespace, ConfigThenPodNamespaceThenClient) {
  config::SelfManagedTlsConfig c;
  ::unsetenv("POD_NAMESPACE");
  EXPECT_EQ(self_managed_namespace(c, "from-client"), "from-client");
  ::setenv("POD_NAMESPACE", "from-pod", 1);
  EXPECT_EQ(self_managed_namespace(c, "from-client"), "from-pod");
  c.secret_namespace = "configured";
  EXPECT_EQ(self_managed_namespace(c, "from-client"), "configured");
  ::unsetenv("POD_NAMESPACE");
}

TEST(SelfManagedNames, ServiceNamesUnlessListed) {
  config::SelfManagedTlsConfig c;
  c.service = "svc";
  c.ip_addresses = {"::1"};
  const ServingNames n = serving_names(c, "ns");
  EXPECT_EQ(n.dns,
            (std::vector<std::string>{"svc", "svc.ns", "svc.ns.svc", "svc.ns.svc.cluster.local"}));
  EXPECT_EQ(n.ip, std::vector<std::string>{"::1"});
  c.dns_names = {"a.example"};
  EXPECT_EQ(serving_names(c, "ns").dns, std::vector<std::string>{"a.example"});
}

}  // namespace
}  // namespace hami::webhook_tls::test
