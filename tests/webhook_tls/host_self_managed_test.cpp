// The whole host with tls.selfManaged against the fake API server: the
// webhook listener serves the certificate of the Secret it created, which
// chains to the caBundle it set; it serves a renewed one without a restart;
// a host that cannot get its certificate does not start.
#include <fstream>

#include "app/config_summary.hpp"
#include "app/scheduler_host.hpp"
#include "kube_env.hpp"
#include "test_support.hpp"
#include "tls_env.hpp"
#include "webhook_tls/certificate_issuer.hpp"
#include "webhook_tls/self_managed_tls.hpp"

namespace hami::webhook_tls::test {
namespace {

using hami::testing::FakeApiServer;

struct HostSelfManagedTls : ::testing::Test {
  HostSelfManagedTls() {
    fake.apply(webhook_configuration());
    kubeconfig = e2e::write_kubeconfig(dir.path(), fake.url());
  }

  config::HostConfig host_config(int check_interval_seconds = 3600) const {
    config::HostConfig c = e2e::host_config(kubeconfig);
    c.tls.self_signed = false;
    c.tls.self_managed = self_managed_config();
    c.tls.self_managed->check_interval_seconds = check_interval_seconds;
    return c;
  }

  // A TLS client trusting only `ca_pem`.
  hami::test::SslCtxPtr client_trusting(const std::string& ca_pem) {
    const auto file = dir.path() / ("ca-" + std::to_string(++cas) + ".crt");
    std::ofstream(file) << ca_pem;
    hami::test::ClientTlsOptions options;
    options.ca_file = file;
    return hami::test::make_client_ctx(options);
  }

  FakeApiServer fake;
  e2e::TempFolder dir;
  std::filesystem::path kubeconfig;
  std::ostringstream log_sink;
  log::Logger logger{log::Level::info, log::Format::text, &log_sink};
  int cas = 0;
};

TEST_F(HostSelfManagedTls, ServesTheCertificateOfTheSecretChainingToTheCaBundle) {
  app::SchedulerHost host(host_config(), logger);
  host.start();
  const TlsBundle stored = secret_bundle(fake);
  ASSERT_FALSE(stored.ca_pem.empty());
  EXPECT_EQ(ca_bundle(fake, 1), stored.ca_pem);

  const auto trusting = client_trusting(ca_bundle(fake, 1));
  hami::test::TlsConnection conn(trusting.get(), host.server().port());
  ASSERT_TRUE(conn.handshake()) << conn.error();
  EXPECT_EQ(conn.peer_certificate_pem(), stored.cert_pem);
  ASSERT_TRUE(conn.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  const auto reply = conn.read_response();
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(hami::test::parse_response(*reply).status, 200);

  // A CA the host did not make is not what it chains to (the check can fail).
  const auto stranger = client_trusting(issue_ca("stranger", 1).cert_pem);
  hami::test::TlsConnection refused(stranger.get(), host.server().port());
  EXPECT_FALSE(refused.handshake());
  host.shutdown(std::chrono::seconds(1));
}

TEST_F(HostSelfManagedTls, ServesARenewedCertificateWithoutRestart) {
  app::SchedulerHost host(host_config(1), logger);
  host.start();
  const TlsBundle first = secret_bundle(fake);
  // Another replica re-issues the serving certificate with the same CA.
  const TlsBundle renewed = issue_serving(first.ca_pem, first.ca_key_pem,
                                          serving_names(self_managed_config(), kNamespace), 365);
  json s = stored_secret(fake);
  s["data"][kCertKey] = platform::base64_encode(renewed.cert_pem);
  s["data"][kKeyKey] = platform::base64_encode(renewed.key_pem);
  fake.apply(s.dump());
  const auto trusting = client_trusting(first.ca_pem);
  EXPECT_TRUE(eventually([&] {
    hami::test::TlsConnection conn(trusting.get(), host.server().port());
    return conn.handshake() && conn.peer_certificate_pem() == renewed.cert_pem;
  })) << log_sink.str();
  host.shutdown(std::chrono::seconds(1));
}

TEST_F(HostSelfManagedTls, HostDoesNotStartWithoutItsCertificate) {
  fake.fail_next("GET", kSecretPath, 403);
  try {
    app::SchedulerHost host(host_config(), logger);
    FAIL() << "the host started";
  } catch (const SelfManagedTlsError& e) {
    EXPECT_STREQ(e.what(),
                 "tls.selfManaged: cannot read Secret kube-system/hami-tls: 403 Forbidden: secrets "
                 "\"hami-tls\" is forbidden: User \"system:anonymous\" cannot get resource "
                 "\"secrets\" in API group \"\" in the namespace \"kube-system\"");
  }
  fake.remove("MutatingWebhookConfiguration", "", kWebhooks);
  try {
    app::SchedulerHost host(host_config(), logger);
    FAIL() << "the host started";
  } catch (const SelfManagedTlsError& e) {
    EXPECT_STREQ(e.what(),
                 "tls.selfManaged: MutatingWebhookConfiguration hami-admission not found");
  }
}

TEST_F(HostSelfManagedTls, CheckConfigShowsTheSettings) {
  config::HostConfig c = host_config();
  c.tls.self_managed->secret_namespace.clear();
  EXPECT_NE(app::listeners_summary(c).find(
                "tls: self-managed in Secret <pod namespace>/hami-tls for hami-admission, "
                "hami-admission.<pod namespace>, hami-admission.<pod namespace>.svc, "
                "hami-admission.<pod namespace>.svc.cluster.local, 127.0.0.1 (CA 3650 days, "
                "serving certificate 365 days, renewed 30 days before expiry, checked every "
                "3600s); caBundle: MutatingWebhookConfiguration hami-admission, webhooks calling "
                "service <pod namespace>/hami-admission; files in a private temporary folder\n"),
            std::string::npos)
      << app::listeners_summary(c);
}

}  // namespace
}  // namespace hami::webhook_tls::test
