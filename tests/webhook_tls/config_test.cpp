// tls.selfManaged in the host config: the values read, the defaults, and
// every error with its exact message.
#include "config_fixture.hpp"

namespace hami::test {
namespace {

using SelfManagedConfig = ConfigTest;

const std::string kBase =
    "tls:\n  selfManaged:\n    secret: hami-tls\n    service: hami-admission\n";

TEST_F(SelfManagedConfig, Defaults) {
  const auto c = load(kBase);
  ASSERT_TRUE(c.tls.self_managed.has_value());
  const auto& sm = *c.tls.self_managed;
  EXPECT_EQ(sm.secret, "hami-tls");
  EXPECT_EQ(sm.service, "hami-admission");
  EXPECT_EQ(sm.secret_namespace, "");
  EXPECT_EQ(sm.webhook_configuration, "");
  EXPECT_TRUE(sm.dns_names.empty());
  EXPECT_TRUE(sm.ip_addresses.empty());
  EXPECT_EQ(sm.ca_days, 3650);
  EXPECT_EQ(sm.leaf_days, 365);
  EXPECT_EQ(sm.renew_before_days, 30);
  EXPECT_EQ(sm.check_interval_seconds, 3600);
  EXPECT_EQ(sm.directory, "");
  EXPECT_FALSE(c.tls.self_signed);
  EXPECT_TRUE(c.tls.cert_file.empty());
}

TEST_F(SelfManagedConfig, EveryKey) {
  const auto c = load(kBase +
                      "    namespace: kube-system\n    webhookConfiguration: hami-webhook\n"
                      "    dnsNames: [a.example, b.example]\n    ipAddresses: [127.0.0.1, '::1']\n"
                      "    caDays: 100\n    leafDays: 50\n    renewBeforeDays: 10\n"
                      "    checkIntervalSeconds: 60\n    directory: run/tls\n");
  const auto& sm = *c.tls.self_managed;
  EXPECT_EQ(sm.secret_namespace, "kube-system");
  EXPECT_EQ(sm.webhook_configuration, "hami-webhook");
  EXPECT_EQ(sm.dns_names, (std::vector<std::string>{"a.example", "b.example"}));
  EXPECT_EQ(sm.ip_addresses, (std::vector<std::string>{"127.0.0.1", "::1"}));
  EXPECT_EQ(sm.ca_days, 100);
  EXPECT_EQ(sm.leaf_days, 50);
  EXPECT_EQ(sm.renew_before_days, 10);
  EXPECT_EQ(sm.check_interval_seconds, 60);
  EXPECT_EQ(sm.directory, dir / "run/tls");  // relative to the config file
}

TEST_F(SelfManagedConfig, Errors) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"tls:\n  selfManaged:\n    service: s\n",
       "cfg.yaml: tls.selfManaged.secret: required: the name of the secret"},
      {"tls:\n  selfManaged:\n    secret: s\n",
       "cfg.yaml: tls.selfManaged.service: required: the name of the service"},
      {"tls:\n  selfManaged:\n    secret: Bad_Name\n    service: s\n",
       "cfg.yaml: tls.selfManaged.secret: expected a Kubernetes object name (lower-case "
       "DNS-1123), got \"Bad_Name\""},
      {kBase + "    nope: 1\n",
       "cfg.yaml: tls.selfManaged.nope: unknown key (expected one of: secret, namespace, service, "
       "webhookConfiguration, dnsNames, ipAddresses, caDays, leafDays, renewBeforeDays, "
       "checkIntervalSeconds, directory)"},
      {kBase + "    dnsNames: [ok.example, -bad]\n",
       "cfg.yaml: tls.selfManaged.dnsNames[1]: expected a lower-case DNS name, got \"-bad\""},
      {kBase + "    ipAddresses: [10.0.0.300]\n",
       "cfg.yaml: tls.selfManaged.ipAddresses[0]: expected an IPv4 or IPv6 address, got "
       "\"10.0.0.300\""},
      {kBase + "    caDays: 10\n",
       "cfg.yaml: tls.selfManaged.leafDays: must not exceed tls.selfManaged.caDays (10), got 365"},
      {kBase + "    leafDays: 30\n",
       "cfg.yaml: tls.selfManaged.renewBeforeDays: must be below tls.selfManaged.leafDays (30), "
       "got 30"},
      {kBase + "  selfSigned: true\n",
       "cfg.yaml: tls.selfManaged: cannot be combined with tls.certFile, tls.keyFile or "
       "tls.selfSigned"},
      {kBase + "  certFile: c.pem\n",
       "cfg.yaml: tls.selfManaged: cannot be combined with tls.certFile, tls.keyFile or "
       "tls.selfSigned"},
      {"tls:\n  selfSigned: true\nextender:\n  listen: 127.0.0.1:9\n  tls:\n    selfManaged:\n"
       "      secret: s\n      service: s\n",
       "cfg.yaml: extender.tls.selfManaged: only tls (the webhook listener's) can be self-managed"},
  };
  for (const auto& [text, message] : cases)
    EXPECT_EQ(error_of(text), message) << text;
}

}  // namespace
}  // namespace hami::test
