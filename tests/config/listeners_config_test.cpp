// The two listeners of the config: the webhook listener (listen, tls) and
// the extender listener (extender.listen, extender.tls) — defaults, the
// shared loopback socket, the rules that keep the extender verbs off the
// network, --listen, and the exact error of every broken rule.
#include "config/listen_address.hpp"
#include "config_fixture.hpp"

namespace hami::test {
namespace {

using Listeners = ConfigTest;

// The error message of apply_overrides on `cfg` with --listen `listen`.
std::string override_error(config::HostConfig cfg, const std::string& listen) {
  config::Overrides o;
  o.listen = listen;
  try {
    config::apply_overrides(cfg, o);
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST_F(Listeners, ExtenderDefaultsToItsOwnLoopbackPortWithTheWebhookTls) {
  const auto cfg = load(kMinimal);
  EXPECT_EQ(cfg.listen.text(), "127.0.0.1:8443");
  EXPECT_EQ(cfg.extender.listen.text(), "127.0.0.1:8444");
  EXPECT_FALSE(cfg.extender.shared);
  EXPECT_FALSE(cfg.extender.tls.has_value());
  EXPECT_EQ(&cfg.extender_tls(), &cfg.tls);
  // An empty section is the defaults too.
  const auto empty = load(kMinimal + "extender:\n");
  EXPECT_EQ(empty.extender.listen.text(), "127.0.0.1:8444");
  EXPECT_FALSE(empty.extender.tls.has_value());
}

TEST_F(Listeners, ExtenderKeysAreRead) {
  write("ext.crt", "x");
  write("ext.key", "x");
  write("sched-ca.pem", "x");
  const auto cfg = load(kMinimal + R"(
listen: 0.0.0.0:8443
extender:
  listen: "[::1]:9444"
  tls:
    certFile: ext.crt
    keyFile: ext.key
    clientCAFile: sched-ca.pem
    sessionResumption: false
)");
  EXPECT_EQ(cfg.extender.listen.host, "::1");
  EXPECT_EQ(cfg.extender.listen.port, 9444);
  EXPECT_FALSE(cfg.extender.shared);
  ASSERT_TRUE(cfg.extender.tls.has_value());
  EXPECT_EQ(&cfg.extender_tls(), &*cfg.extender.tls);
  EXPECT_EQ(cfg.extender.tls->cert_file, dir / "ext.crt");
  EXPECT_EQ(cfg.extender.tls->key_file, dir / "ext.key");
  EXPECT_EQ(cfg.extender.tls->client_ca_file, dir / "sched-ca.pem");
  EXPECT_FALSE(cfg.extender.tls->self_signed);
  EXPECT_FALSE(cfg.extender.tls->session_resumption);
  // Client certificates on the extender listener only.
  EXPECT_TRUE(cfg.tls.client_ca_file.empty());
}

TEST_F(Listeners, ClientCertificatesOnTheWebhookListenerOnly) {
  write("api-ca.pem", "x");
  const auto cfg = load(
      "tls:\n  selfSigned: true\n  clientCAFile: api-ca.pem\n"
      "extender:\n  tls:\n    selfSigned: true\n");
  EXPECT_EQ(cfg.tls.client_ca_file, dir / "api-ca.pem");
  ASSERT_TRUE(cfg.extender.tls.has_value());
  EXPECT_TRUE(cfg.extender.tls->client_ca_file.empty());
}

TEST_F(Listeners, TheSameLoopbackAddressSharesOneSocket) {
  const auto cfg = load(kMinimal + "listen: 127.0.0.1:9443\nextender:\n  listen: 127.0.0.1:9443\n");
  EXPECT_TRUE(cfg.extender.shared);
  EXPECT_EQ(cfg.extender.listen.text(), "127.0.0.1:9443");
  // The default listen counts as written; host names compare without case.
  EXPECT_TRUE(load(kMinimal + "extender:\n  listen: 127.0.0.1:8443\n").extender.shared);
  EXPECT_TRUE(load(kMinimal + "listen: LocalHost:9443\nextender:\n  listen: localhost:9443\n")
                  .extender.shared);
  EXPECT_TRUE(load(kMinimal + "listen: \"[::1]:9443\"\nextender:\n  listen: \"[::1]:9443\"\n")
                  .extender.shared);
}

TEST_F(Listeners, PortZeroNeverShares) {
  // Two requests for a free port get one each.
  const auto cfg = load(kMinimal + "listen: 127.0.0.1:0\nextender:\n  listen: 127.0.0.1:0\n");
  EXPECT_FALSE(cfg.extender.shared);
  EXPECT_EQ(cfg.extender.listen.text(), "127.0.0.1:0");
}

TEST_F(Listeners, ASharedNonLoopbackAddressIsRefused) {
  EXPECT_EQ(error_of(kMinimal + "listen: 0.0.0.0:8443\nextender:\n  listen: 0.0.0.0:8443\n"),
            "cfg.yaml: extender.listen: equals listen \"0.0.0.0:8443\", which is not a loopback "
            "address: one socket may serve the webhook and the extender verbs on loopback only "
            "(elsewhere anyone who reaches the webhook could bind pods); give extender.listen an "
            "address of its own, e.g. 127.0.0.1:8444");
  EXPECT_EQ(error_of(kMinimal + "listen: 10.1.2.3:8443\nextender:\n  listen: 10.1.2.3:8443\n")
                .rfind("cfg.yaml: extender.listen: equals listen \"10.1.2.3:8443\", which is not "
                       "a loopback address",
                       0),
            0u);
  // A client CA does not make a shared socket acceptable: the webhook's
  // clients (the API server) would reach the extender verbs.
  write("ca.pem", "x");
  EXPECT_EQ(error_of("tls: {selfSigned: true, clientCAFile: ca.pem}\nlisten: 0.0.0.0:8443\n"
                     "extender: {listen: 0.0.0.0:8443}\n")
                .rfind("cfg.yaml: extender.listen: equals listen \"0.0.0.0:8443\"", 0),
            0u);
}

TEST_F(Listeners, ASharedSocketTakesNoTlsOfItsOwn) {
  EXPECT_EQ(error_of(kMinimal + "extender:\n  listen: 127.0.0.1:8443\n  tls: {selfSigned: true}\n"),
            "cfg.yaml: extender.tls: cannot be set when extender.listen equals listen: the one "
            "socket serves both route sets with the settings of tls");
}

TEST_F(Listeners, TheSamePortOnAnotherHostIsRefused) {
  EXPECT_EQ(error_of(kMinimal + "listen: 10.0.0.5:8443\nextender:\n  listen: 127.0.0.1:8443\n"),
            "cfg.yaml: extender.listen: \"127.0.0.1:8443\" uses the port of listen "
            "\"10.0.0.5:8443\": give the extender listener a port of its own (default "
            "127.0.0.1:8444), listen's exact address to share one socket (loopback only), or a "
            "loopback address on the port of a wildcard listen (0.0.0.0)");
  // listen moved onto the extender's default port, extender not written.
  EXPECT_EQ(error_of(kMinimal + "listen: 127.0.0.1:8444\n"),
            "cfg.yaml: extender.listen: \"127.0.0.1:8444\" uses the port of listen "
            "\"127.0.0.1:8444\": give the extender listener a port of its own (default "
            "127.0.0.1:8444), listen's exact address to share one socket (loopback only), or a "
            "loopback address on the port of a wildcard listen (0.0.0.0)");
  // A wildcard extender address on a wildcard listen's port is no loopback.
  EXPECT_EQ(error_of(kMinimal + "listen: 0.0.0.0:8443\nextender:\n  listen: \"[::]:8443\"\n")
                .rfind("cfg.yaml: extender.listen: \"[::]:8443\" uses the port of listen", 0),
            0u);
}

// HAMi's chart layout: the webhook on 0.0.0.0:443, kube-scheduler calling
// the extender at 127.0.0.1:443. Linux cannot bind both; the wildcard
// socket serves the extender verbs on its loopback connections.
TEST_F(Listeners, ALoopbackExtenderOnAWildcardListensPortSharesItsSocket) {
  const auto cfg = load(kMinimal + "listen: 0.0.0.0:443\nextender:\n  listen: 127.0.0.1:443\n");
  EXPECT_TRUE(cfg.extender.shared);
  EXPECT_EQ(cfg.listen.text(), "0.0.0.0:443");
  EXPECT_EQ(cfg.extender.listen.text(), "127.0.0.1:443");
  EXPECT_TRUE(load(kMinimal + "listen: \"[::]:443\"\nextender:\n  listen: \"[::1]:443\"\n")
                  .extender.shared);
  EXPECT_TRUE(load(kMinimal + "listen: \"[::]:443\"\nextender:\n  listen: localhost:443\n")
                  .extender.shared);
  // Port 0 still never shares.
  EXPECT_FALSE(
      load(kMinimal + "listen: 0.0.0.0:0\nextender:\n  listen: 127.0.0.1:0\n").extender.shared);
  EXPECT_EQ(error_of(kMinimal + "listen: 0.0.0.0:443\nextender:\n  listen: 127.0.0.1:443\n"
                                "  tls: {selfSigned: true}\n"),
            "cfg.yaml: extender.tls: cannot be set when extender.listen is on loopback at the "
            "port of listen \"0.0.0.0:443\": the one socket serves both route sets with the "
            "settings of tls");
}

TEST_F(Listeners, ARemoteExtenderListenerRequiresClientCertificates) {
  EXPECT_EQ(error_of(kMinimal + "listen: 0.0.0.0:8443\nextender:\n  listen: 0.0.0.0:8444\n"),
            "cfg.yaml: extender.listen: \"0.0.0.0:8444\" is not a loopback address and no client "
            "CA is configured (extender.tls is not set and tls.clientCAFile is empty): a "
            "kube-scheduler on another machine must present a client certificate, since the "
            "extender verbs bind pods to nodes; set extender.tls.clientCAFile, or listen on "
            "loopback");
  EXPECT_EQ(error_of(kMinimal + "extender:\n  listen: 10.0.0.5:8444\n  tls: {selfSigned: true}\n"),
            "cfg.yaml: extender.listen: \"10.0.0.5:8444\" is not a loopback address and "
            "extender.tls.clientCAFile is not set: a kube-scheduler on another machine must "
            "present a client certificate, since the extender verbs bind pods to nodes; set "
            "extender.tls.clientCAFile, or listen on loopback");
  // A host name is not known to be loopback.
  EXPECT_EQ(error_of(kMinimal + "extender:\n  listen: scheduler.internal:8444\n")
                .rfind("cfg.yaml: extender.listen: \"scheduler.internal:8444\" is not a loopback "
                       "address",
                       0),
            0u);
}

TEST_F(Listeners, ARemoteExtenderListenerWithAClientCaLoads) {
  write("sched-ca.pem", "x");
  const auto own = load(kMinimal +
                        "extender:\n  listen: 0.0.0.0:8444\n  tls:\n    selfSigned: true\n"
                        "    clientCAFile: sched-ca.pem\n");
  EXPECT_EQ(own.extender.listen.text(), "0.0.0.0:8444");
  EXPECT_EQ(own.extender_tls().client_ca_file, dir / "sched-ca.pem");
  // Inherited from tls: both listeners then require client certificates.
  const auto inherited = load(
      "tls: {selfSigned: true, clientCAFile: sched-ca.pem}\nextender: {listen: \"[::]:8444\"}\n");
  EXPECT_EQ(inherited.extender_tls().client_ca_file, dir / "sched-ca.pem");
}

TEST_F(Listeners, ExtenderSectionErrorsNameTheirKeys) {
  EXPECT_EQ(error_of(kMinimal + "extender:\n  port: 8444\n"),
            "cfg.yaml: extender.port: unknown key (expected one of: listen, tls)");
  EXPECT_EQ(error_of(kMinimal + "extender:\n  tls:\n    certfile: a\n"),
            "cfg.yaml: extender.tls.certfile: unknown key (expected one of: certFile, keyFile, "
            "clientCAFile, selfSigned, sessionResumption)");
  EXPECT_EQ(error_of(kMinimal + "extender: 8444\n"),
            "cfg.yaml: extender: expected a mapping, got \"8444\"");
  EXPECT_EQ(error_of(kMinimal + "extender:\n  listen: \"8444\"\n"),
            "cfg.yaml: extender.listen: expected ADDR:PORT (e.g. 127.0.0.1:8443 or [::1]:8443), "
            "got \"8444\"");
  EXPECT_EQ(error_of(kMinimal + "extender:\n  listen: \":8444\"\n"),
            "cfg.yaml: extender.listen: expected ADDR:PORT (e.g. 127.0.0.1:8443 or [::1]:8443), "
            "got \":8444\"");
  EXPECT_EQ(error_of(kMinimal + "extender:\n  tls:\n    selfSigned: true\n    certFile: c.pem\n"),
            "cfg.yaml: extender.tls.selfSigned: cannot be combined with extender.tls.certFile or "
            "extender.tls.keyFile");
  EXPECT_EQ(error_of(kMinimal + "extender:\n  tls: {}\n"),
            "cfg.yaml: extender.tls.certFile: required unless extender.tls.selfSigned is true");
  write("c.pem", "x");
  EXPECT_EQ(error_of(kMinimal + "extender:\n  tls: {certFile: c.pem}\n"),
            "cfg.yaml: extender.tls.keyFile: required unless extender.tls.selfSigned is true");
  EXPECT_EQ(error_of(kMinimal + "extender:\n  tls: {certFile: c.pem, keyFile: k.pem}\n"),
            "cfg.yaml: extender.tls.keyFile: cannot read \"DIR/k.pem\": No such file or directory");
  EXPECT_EQ(error_of(kMinimal + "extender:\n  tls: {selfSigned: true, clientCAFile: ca.pem}\n"),
            "cfg.yaml: extender.tls.clientCAFile: cannot read \"DIR/ca.pem\": No such file or "
            "directory");
  EXPECT_EQ(error_of(kMinimal + "extender:\n  tls: {selfSigned: yes}\n"),
            "cfg.yaml: extender.tls.selfSigned: expected true or false, got \"yes\"");
}

TEST_F(Listeners, ListenOverrideMovesTheWebhookListenerOnly) {
  auto cfg = load(kMinimal + "listen: 127.0.0.1:9443\n");
  config::Overrides o;
  o.listen = "0.0.0.0:7443";
  config::apply_overrides(cfg, o);
  EXPECT_EQ(cfg.listen.text(), "0.0.0.0:7443");
  EXPECT_EQ(cfg.extender.listen.text(), "127.0.0.1:8444");
  EXPECT_FALSE(cfg.extender.shared);
}

TEST_F(Listeners, ListenOverrideMovesASharedSocket) {
  auto cfg = load(kMinimal + "extender:\n  listen: 127.0.0.1:8443\n");
  config::Overrides o;
  o.listen = "127.0.0.1:0";
  config::apply_overrides(cfg, o);
  EXPECT_TRUE(cfg.extender.shared);
  EXPECT_EQ(cfg.listen.text(), "127.0.0.1:0");
  EXPECT_EQ(cfg.extender.listen.text(), "127.0.0.1:0");
}

TEST_F(Listeners, ListenOverrideCannotTakeASharedSocketOffLoopback) {
  const auto cfg = load(kMinimal + "extender:\n  listen: 127.0.0.1:8443\n");
  EXPECT_EQ(normalise(override_error(cfg, "10.0.0.5:8443")),
            "--listen: \"10.0.0.5:8443\" is not a loopback address, but cfg.yaml shares the "
            "webhook listener's socket with the extender listener, which is allowed on loopback, "
            "or on a wildcard address (0.0.0.0) whose loopback connections alone get the "
            "extender verbs; give extender.listen an address of its own there");
}

TEST_F(Listeners, ListenOverrideOntoAWildcardKeepsTheExtenderOnLoopback) {
  auto cfg = load(kMinimal + "extender:\n  listen: 127.0.0.1:8443\n");
  config::Overrides o;
  o.listen = "0.0.0.0:9443";
  config::apply_overrides(cfg, o);
  EXPECT_TRUE(cfg.extender.shared);
  EXPECT_EQ(cfg.listen.text(), "0.0.0.0:9443");
  EXPECT_EQ(cfg.extender.listen.text(), "127.0.0.1:9443");
  // And back onto loopback: one address again.
  o.listen = "127.0.0.1:7443";
  config::apply_overrides(cfg, o);
  EXPECT_EQ(cfg.extender.listen.text(), "127.0.0.1:7443");
}

TEST_F(Listeners, ListenOverrideCannotTakeTheExtenderPort) {
  const auto cfg = load(kMinimal);
  EXPECT_EQ(normalise(override_error(cfg, "0.0.0.0:8444")),
            "--listen: \"0.0.0.0:8444\" uses the port of the extender listener (extender.listen "
            "\"127.0.0.1:8444\" in cfg.yaml)");
  // Port 0 is always free to take.
  EXPECT_EQ(override_error(cfg, "127.0.0.1:0"), "<no error>");
}

TEST(Loopback, OnlyAddressesNoOtherMachineCanReach) {
  const auto loopback = [](const char* host) {
    config::ListenAddress a;
    a.host = host;
    return config::is_loopback(a);
  };
  for (const char* yes : {"127.0.0.1", "127.255.3.4", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1",
                          "localhost", "LOCALHOST"}) {
    EXPECT_TRUE(loopback(yes)) << yes;
  }
  for (const char* no :
       {"0.0.0.0", "::", "", "10.0.0.1", "128.0.0.1", "126.255.255.255", "::ffff:10.0.0.1", "::2",
        "fe80::1%lo", "localhost.example.com", "example.com", "127.0.0.1.nip.io"}) {
    EXPECT_FALSE(loopback(no)) << no;
  }
}

TEST(Wildcard, OnlyTheAddressesOfEveryInterface) {
  const auto wildcard = [](const char* host) {
    config::ListenAddress a;
    a.host = host;
    return config::is_wildcard(a);
  };
  for (const char* yes : {"", "0.0.0.0", "::", "0:0:0:0:0:0:0:0"})
    EXPECT_TRUE(wildcard(yes)) << yes;
  for (const char* no : {"127.0.0.1", "0", "0.0.0.1", "::1", "::ffff:0.0.0.0", "localhost", "any"})
    EXPECT_FALSE(wildcard(no)) << no;
}

TEST(ShippedConfig, DevYamlSharesOneLoopbackSocket) {
  const auto cfg = config::load_config(std::filesystem::path(HAMI_SOURCE_DIR) / "config/dev.yaml");
  EXPECT_EQ(cfg.listen.text(), "127.0.0.1:8443");
  EXPECT_TRUE(cfg.extender.shared);
  EXPECT_EQ(cfg.extender.listen.text(), "127.0.0.1:8443");
  EXPECT_FALSE(cfg.extender.tls.has_value());
}

TEST(ShippedConfig, ExampleYamlHasTwoListeners) {
  const auto cfg =
      config::load_config(std::filesystem::path(HAMI_SOURCE_DIR) / "config/example.yaml");
  EXPECT_EQ(cfg.listen.text(), "127.0.0.1:8443");
  EXPECT_EQ(cfg.extender.listen.text(), "127.0.0.1:8444");
  EXPECT_FALSE(cfg.extender.shared);
}

}  // namespace
}  // namespace hami::test
