// The certificates tls.selfManaged issues, and the verdict on a bundle found
// in the Secret: keep, re-issue the serving certificate with the same CA, or
// start over with a new CA.
#include <gtest/gtest.h>
#include <openssl/x509v3.h>

#include "webhook_tls/bundle_check.hpp"
#include "webhook_tls/certificate_issuer.hpp"
#include "webhook_tls/pem_objects.hpp"

namespace hami::webhook_tls {
namespace {

using namespace std::chrono_literals;

constexpr std::chrono::seconds kThirtyDays{30 * 86400};

ServingNames names() {
  return {{"hami-admission", "hami-admission.kube-system", "hami-admission.kube-system.svc"},
          {"127.0.0.1"}};
}

TlsBundle fresh_bundle(int ca_days = 3650, int leaf_days = 365) {
  const IssuedCa ca = issue_ca("test CA", ca_days);
  return issue_serving(ca.cert_pem, ca.key_pem, names(), leaf_days);
}

std::time_t not_after(const std::string& pem) {
  const auto cert = read_certificate(pem);
  std::tm tm{};
  EXPECT_EQ(ASN1_TIME_to_tm(X509_get0_notAfter(cert.get()), &tm), 1);
  return timegm(&tm);
}

TEST(Certificates, CaIsASelfSignedCa) {
  const IssuedCa ca = issue_ca("hami-scheduler webhook CA kube-system/hami-tls", 3650);
  const auto cert = read_certificate(ca.cert_pem);
  const auto key = read_private_key(ca.key_pem);
  ASSERT_TRUE(cert && key);
  EXPECT_EQ(X509_check_ca(cert.get()), 1);
  EXPECT_EQ(X509_check_issued(cert.get(), cert.get()), X509_V_OK);
  EXPECT_EQ(X509_check_private_key(cert.get(), key.get()), 1);
  EXPECT_EQ(EVP_PKEY_get_base_id(key.get()), EVP_PKEY_EC);
  const std::time_t now = std::time(nullptr);
  EXPECT_NEAR(static_cast<double>(not_after(ca.cert_pem) - now), 3650.0 * 86400, 60);
}

TEST(Certificates, ServingCertificateCarriesTheNamesAndServerAuth) {
  const TlsBundle b = fresh_bundle();
  const auto leaf = read_certificate(b.cert_pem);
  const auto ca = read_certificate(b.ca_pem);
  ASSERT_TRUE(leaf && ca);
  EXPECT_EQ(X509_check_issued(ca.get(), leaf.get()), X509_V_OK);
  EXPECT_EQ(X509_verify(leaf.get(), X509_get0_pubkey(ca.get())), 1);
  EXPECT_EQ(X509_check_ca(leaf.get()), 0);
  EXPECT_EQ(X509_check_purpose(leaf.get(), X509_PURPOSE_SSL_SERVER, 0), 1);
  EXPECT_TRUE(X509_get_extended_key_usage(leaf.get()) & XKU_SSL_SERVER);
  const ServingNames got = certificate_names(b.cert_pem);
  EXPECT_EQ(got.dns, (std::vector<std::string>{"hami-admission", "hami-admission.kube-system",
                                               "hami-admission.kube-system.svc"}));
  EXPECT_EQ(got.ip, std::vector<std::string>{"127.0.0.1"});
  EXPECT_EQ(X509_check_host(leaf.get(), "hami-admission.kube-system.svc", 0, 0, nullptr), 1);
  EXPECT_EQ(X509_check_ip_asc(leaf.get(), "127.0.0.1", 0), 1);
  const std::time_t now = std::time(nullptr);
  EXPECT_NEAR(static_cast<double>(not_after(b.cert_pem) - now), 365.0 * 86400, 60);
}

TEST(Certificates, ServingCertificateNeverOutlivesItsCa) {
  const TlsBundle b = fresh_bundle(10, 365);
  EXPECT_EQ(not_after(b.cert_pem), not_after(b.ca_pem));
}

TEST(Certificates, IssuingWithAMismatchedCaKeyFails) {
  const IssuedCa one = issue_ca("one", 10);
  const IssuedCa two = issue_ca("two", 10);
  try {
    issue_serving(one.cert_pem, two.key_pem, names(), 1);
    FAIL() << "issued with a foreign key";
  } catch (const IssueError& e) {
    EXPECT_STREQ(e.what(),
                 "cannot issue the serving certificate: the CA key does not match the CA");
  }
}

TEST(BundleCheck, AFreshBundleIsKept) {
  const BundleVerdict v = check_bundle(fresh_bundle(), names(), kThirtyDays);
  EXPECT_EQ(v.action, BundleAction::keep) << v.reason;
  EXPECT_EQ(v.reason, "");
}

TEST(BundleCheck, NamesAreComparedAsSets) {
  ServingNames shuffled = names();
  std::reverse(shuffled.dns.begin(), shuffled.dns.end());
  shuffled.dns.push_back("hami-admission");  // a duplicate
  EXPECT_EQ(check_bundle(fresh_bundle(), shuffled, kThirtyDays).action, BundleAction::keep);
}

TEST(BundleCheck, ExpiringServingCertificateIsReissuedWithTheSameCa) {
  const TlsBundle b = fresh_bundle(3650, 10);
  const BundleVerdict v = check_bundle(b, names(), kThirtyDays);
  EXPECT_EQ(v.action, BundleAction::reissue_leaf);
  EXPECT_EQ(v.reason.rfind("serving certificate expires within 30 days (notAfter ", 0), 0u)
      << v.reason;
  // Outside the window it is kept.
  EXPECT_EQ(check_bundle(b, names(), 5 * 86400s).action, BundleAction::keep);
}

TEST(BundleCheck, OtherNamesAreReissuedWithTheSameCa) {
  ServingNames other = names();
  other.dns = {"someone-else.default.svc"};
  const BundleVerdict v = check_bundle(fresh_bundle(), other, kThirtyDays);
  EXPECT_EQ(v.action, BundleAction::reissue_leaf);
  EXPECT_EQ(v.reason,
            "serving certificate names differ: has [hami-admission, hami-admission.kube-system, "
            "hami-admission.kube-system.svc, 127.0.0.1], want [someone-else.default.svc, "
            "127.0.0.1]");
}

TEST(BundleCheck, ExpiringCaStartsOver) {
  const BundleVerdict v = check_bundle(fresh_bundle(20, 20), names(), kThirtyDays);
  EXPECT_EQ(v.action, BundleAction::new_ca);
  EXPECT_NE(v.reason.find("CA certificate expires within 30 days"), std::string::npos) << v.reason;
}

TEST(BundleCheck, MissingCaKeyKeepsAGoodLeafButCannotReissue) {
  TlsBundle b = fresh_bundle();
  b.ca_key_pem.clear();
  EXPECT_EQ(check_bundle(b, names(), kThirtyDays).action, BundleAction::keep);
  ServingNames other = names();
  other.ip.clear();
  const BundleVerdict v = check_bundle(b, other, kThirtyDays);
  EXPECT_EQ(v.action, BundleAction::new_ca);
  EXPECT_NE(v.reason.find("ca.key is missing or does not parse"), std::string::npos) << v.reason;
}

TEST(BundleCheck, BrokenPiecesAreNamed) {
  const TlsBundle good = fresh_bundle();
  const TlsBundle other = fresh_bundle();
  struct Case {
    TlsBundle bundle;
    BundleAction action;
    std::string reason;
  };
  TlsBundle no_cert = good;
  no_cert.cert_pem = "garbage";
  TlsBundle wrong_key = good;
  wrong_key.key_pem = other.key_pem;
  TlsBundle foreign_leaf = good;
  foreign_leaf.cert_pem = other.cert_pem;
  foreign_leaf.key_pem = other.key_pem;
  TlsBundle no_ca = good;
  no_ca.ca_pem.clear();
  TlsBundle leaf_as_ca = good;
  leaf_as_ca.ca_pem = good.cert_pem;
  leaf_as_ca.ca_key_pem = good.key_pem;
  const std::vector<Case> cases = {
      {no_cert, BundleAction::reissue_leaf, "tls.crt is missing or does not parse"},
      {wrong_key, BundleAction::reissue_leaf, "tls.key does not match tls.crt"},
      {foreign_leaf, BundleAction::reissue_leaf, "tls.crt is not signed by ca.crt"},
      {no_ca, BundleAction::new_ca, "ca.crt is missing or does not parse"},
      {leaf_as_ca, BundleAction::new_ca,
       "tls.crt is not signed by ca.crt; ca.crt is not a CA certificate"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const BundleVerdict v = check_bundle(cases[i].bundle, names(), kThirtyDays);
    EXPECT_EQ(v.action, cases[i].action) << i;
    EXPECT_EQ(v.reason, cases[i].reason) << i;
  }
}

}  // namespace
}  // namespace hami::webhook_tls
