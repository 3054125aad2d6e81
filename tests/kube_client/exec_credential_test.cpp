// ExecCredential parsing (a credential plugin's stdout) with the exact
// message of every refusal, and the KUBERNETES_EXEC_INFO document.
#include "kube/exec_credential.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <string>

namespace hami::kube {
namespace {

constexpr std::string_view kV1 = kExecApiV1;

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ExecCredentialError& e) {
    return e.what();
  }
  return "<no ExecCredentialError>";
}

std::string refusal(std::string_view json, std::string_view version = kV1) {
  return message_of([&] { parse_exec_credential(json, version); });
}

TEST(ExecCredential, TokenWithExpiry) {
  const ExecCredential c = parse_exec_credential(
      R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",
          "spec":{"interactive":false},
          "status":{"token":"k8s-aws-v1.abc","expirationTimestamp":"2030-01-01T00:15:00Z"}})",
      kV1);
  EXPECT_EQ(c.token, "k8s-aws-v1.abc");
  ASSERT_TRUE(c.expires_at.has_value());
  EXPECT_EQ(*c.expires_at, 1893456900);
  EXPECT_TRUE(c.client_certificate_pem.empty());
}

TEST(ExecCredential, V1beta1WithFractionalOffsetExpiryAndUnknownFields) {
  const ExecCredential c = parse_exec_credential(
      R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1",
          "extra":[1,2],"status":{"token":"t","expirationTimestamp":"2030-01-01T01:15:00.5+01:00",
          "future":{}}})",
      kExecApiV1beta1);
  EXPECT_EQ(c.token, "t");
  EXPECT_EQ(c.expires_at, 1893456900);
}

TEST(ExecCredential, NoExpiryMeansUntilRejected) {
  const ExecCredential c = parse_exec_credential(
      R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"t","expirationTimestamp":null}})",
      kV1);
  EXPECT_FALSE(c.expires_at.has_value());
}

TEST(ExecCredential, ClientCertificateAndKey) {
  const ExecCredential c = parse_exec_credential(
      R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"clientCertificateData":"-----BEGIN CERTIFICATE-----\n","clientKeyData":"-----BEGIN PRIVATE KEY-----\n"}})",
      kV1);
  EXPECT_TRUE(c.token.empty());
  EXPECT_EQ(c.client_certificate_pem, "-----BEGIN CERTIFICATE-----\n");
  EXPECT_EQ(c.client_key_pem, "-----BEGIN PRIVATE KEY-----\n");
}

TEST(ExecCredential, Refusals) {
  EXPECT_EQ(refusal(""), "not JSON: The document is empty. at offset 0");
  EXPECT_EQ(refusal("Token: abc"), "not JSON: Invalid value. at offset 0");
  EXPECT_EQ(refusal(R"({"kind":"ExecCredential"} trailing)"),
            "not JSON: The document root must not be followed by other values. at offset 26");
  EXPECT_EQ(refusal("[]"), "expected a JSON object");
  EXPECT_EQ(refusal(R"({"apiVersion":"client.authentication.k8s.io/v1","status":{"token":"t"}})"),
            "kind is \"\", expected \"ExecCredential\"");
  EXPECT_EQ(refusal(R"({"kind":"Status","status":{"token":"t"}})"),
            "kind is \"Status\", expected \"ExecCredential\"");
  EXPECT_EQ(refusal(R"({"kind":7})"), "kind: expected a string");
  EXPECT_EQ(
      refusal(
          R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","status":{"token":"t"}})"),
      "apiVersion is \"client.authentication.k8s.io/v1beta1\", expected "
      "\"client.authentication.k8s.io/v1\" (the kubeconfig's exec.apiVersion)");
  EXPECT_EQ(refusal(R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1"})"),
            "status is missing");
  EXPECT_EQ(
      refusal(
          R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":"t"})"),
      "status: expected an object");
  EXPECT_EQ(
      refusal(
          R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{}})"),
      "status has neither a token nor clientCertificateData and clientKeyData");
  EXPECT_EQ(
      refusal(
          R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":""}})"),
      "status has neither a token nor clientCertificateData and clientKeyData");
  EXPECT_EQ(
      refusal(
          R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":5}})"),
      "status.token: expected a string");
  EXPECT_EQ(
      refusal(
          R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"clientCertificateData":"c"}})"),
      "status.clientCertificateData is set without status.clientKeyData");
  EXPECT_EQ(
      refusal(
          R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"t","clientKeyData":"k"}})"),
      "status.clientKeyData is set without status.clientCertificateData");
  EXPECT_EQ(
      refusal(
          R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"t","expirationTimestamp":"tomorrow"}})"),
      "status.expirationTimestamp \"tomorrow\" is not an RFC 3339 time");
  EXPECT_EQ(
      refusal(
          R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"t","expirationTimestamp":1893456900}})"),
      "status.expirationTimestamp: expected a string");
}

TEST(ExecCredential, LongValuesAreShortenedInMessages) {
  const std::string kind(200, 'x');
  EXPECT_EQ(refusal(R"({"kind":")" + kind + R"("})"),
            "kind is \"" + std::string(80, 'x') + "…\", expected \"ExecCredential\"");
}

TEST(ExecInfo, WithoutClusterInfo) {
  EXPECT_EQ(exec_info_json(kV1, std::nullopt),
            R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
            R"("spec":{"interactive":false}})");
}

TEST(ExecInfo, WithClusterInfo) {
  EXPECT_EQ(exec_info_json(kExecApiV1beta1, ExecClusterInfo{"https://10.0.0.1:6443", "ca\"pem\n",
                                                            "kube.local", true}),
            R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1",)"
            R"("spec":{"cluster":{"server":"https://10.0.0.1:6443","tls-server-name":"kube.local",)"
            R"("insecure-skip-tls-verify":true,"certificate-authority-data":"Y2EicGVtCg=="},)"
            R"("interactive":false}})");
  // Empty optional fields are left out, as client-go's omitempty does.
  EXPECT_EQ(exec_info_json(kV1, ExecClusterInfo{"https://h:1", "", "", false}),
            R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
            R"("spec":{"cluster":{"server":"https://h:1"},"interactive":false}})");
}

}  // namespace
}  // namespace hami::kube
