// The JSON tls.selfManaged reads and writes: base64, the Secret, and the
// JSON Patch setting a webhook configuration's caBundle (exact bytes: the
// API server applies them as written).
#include <gtest/gtest.h>

#include "platform/base64.hpp"
#include "webhook_tls/ca_bundle_patch.hpp"
#include "webhook_tls/tls_secret.hpp"

namespace hami::webhook_tls {
namespace {

TEST(Base64, Rfc4648Vectors) {
  const std::vector<std::pair<std::string, std::string>> vectors = {{"", ""},
                                                                    {"f", "Zg=="},
                                                                    {"fo", "Zm8="},
                                                                    {"foo", "Zm9v"},
                                                                    {"foob", "Zm9vYg=="},
                                                                    {"fooba", "Zm9vYmE="},
                                                                    {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    EXPECT_EQ(platform::base64_encode(plain), encoded);
    EXPECT_EQ(platform::base64_decode(encoded), plain) << encoded;
  }
  EXPECT_EQ(platform::base64_encode(std::string("\xff\xfe\x00", 3)), "//4A");
}

TEST(Base64, RejectsWhatIsNotBase64) {
  for (const std::string bad : {"Zg=", "Zg", "Z===", "Zg==Zg==", "Zm9v!A==", "=Zm9", "Zm=v"})
    EXPECT_FALSE(platform::base64_decode(bad).has_value()) << bad;
}

TlsBundle bundle() {
  return {"CERT", "KEY", "CA", "CAKEY"};
}

TEST(TlsSecretJson, NewSecretIsATlsSecretWithAllFourKeys) {
  EXPECT_EQ(new_secret_json("kube-system", "hami-tls", bundle()),
            R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"hami-tls",)"
            R"("namespace":"kube-system","labels":{"app.kubernetes.io/managed-by":)"
            R"("hami-scheduler"}},"type":"kubernetes.io/tls","data":{"tls.crt":"Q0VSVA==",)"
            R"("tls.key":"S0VZ","ca.crt":"Q0E=","ca.key":"Q0FLRVk="}})");
}

TEST(TlsSecretJson, ParsesWhatTheApiServerReturns) {
  const StoredSecret s =
      parse_secret(R"({"kind":"Secret","metadata":{"name":"hami-tls","resourceVersion":"42"},)"
                   R"("type":"kubernetes.io/tls","data":{"tls.crt":"Q0VSVA==","tls.key":"S0VZ",)"
                   R"("ca.crt":"Q0E=","ca.key":"Q0FLRVk=","other":"eA=="}})");
  EXPECT_EQ(s.resource_version, "42");
  EXPECT_EQ(s.type, "kubernetes.io/tls");
  EXPECT_EQ(s.bundle, bundle());
  EXPECT_EQ(s.problem, "");
}

TEST(TlsSecretJson, UndecodableValuesAreNamedAndLeftEmpty) {
  const StoredSecret s = parse_secret(
      R"({"metadata":{},"data":{"tls.crt":"not base64!","tls.key":7,"ca.crt":"Q0E="}})");
  EXPECT_EQ(s.resource_version, "");
  EXPECT_EQ(s.type, "");
  EXPECT_EQ(s.bundle.cert_pem, "");
  EXPECT_EQ(s.bundle.key_pem, "");
  EXPECT_EQ(s.bundle.ca_pem, "CA");
  EXPECT_EQ(s.problem, "tls.crt is not base64; tls.key is not base64");
}

TEST(TlsSecretJson, ReplyThatIsNoSecretThrows) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "Secret reply is not JSON: The document is empty. at offset 0"},
      {"[]", "Secret reply is not a JSON object"},
      {R"({"metadata":3})", "Secret reply has no metadata object"},
      {std::string(600, '['), "Secret reply nests deeper than 512"},
  };
  for (const auto& [json, message] : cases) {
    try {
      parse_secret(json);
      ADD_FAILURE() << json;
    } catch (const SecretFormatError& e) {
      EXPECT_EQ(e.what(), message);
    }
  }
}

TEST(TlsSecretJson, UpdateKeepsEverythingElseAndTheResourceVersion) {
  const std::string existing =
      R"({"kind":"Secret","metadata":{"name":"hami-tls","resourceVersion":"7",)"
      R"("annotations":{"a":"b"}},"type":"kubernetes.io/tls",)"
      R"("data":{"tls.crt":"b2xk","extra":"eA==","ca.key":"b2xk"}})";
  TlsBundle b = bundle();
  b.ca_key_pem.clear();  // an empty piece is removed
  EXPECT_EQ(updated_secret_json(existing, b),
            R"({"kind":"Secret","metadata":{"name":"hami-tls","resourceVersion":"7",)"
            R"("annotations":{"a":"b"}},"type":"kubernetes.io/tls",)"
            R"("data":{"tls.crt":"Q0VSVA==","extra":"eA==","tls.key":"S0VZ","ca.crt":"Q0E="}})");
  EXPECT_EQ(updated_secret_json(R"({"metadata":{"resourceVersion":"1"}})", bundle()),
            R"({"metadata":{"resourceVersion":"1"},"data":{"tls.crt":"Q0VSVA==",)"
            R"("tls.key":"S0VZ","ca.crt":"Q0E=","ca.key":"Q0FLRVk="}})");
}

constexpr const char* kConfiguration =
    R"({"kind":"MutatingWebhookConfiguration","metadata":{"name":"hami","resourceVersion":"9"},)"
    R"("webhooks":[)"
    R"({"name":"other.example","clientConfig":{"service":{"name":"other","namespace":"kube-system"}}},)"
    R"({"name":"pod.vgpu.admission.local","clientConfig":{"service":{"name":"hami-admission",)"
    R"("namespace":"kube-system","path":"/mutate-pod"},"caBundle":"b2xk"}},)"
    R"({"name":"url.example","clientConfig":{"url":"https://x.example/"}},)"
    R"({"name":"second.vgpu","clientConfig":{"service":{"name":"hami-admission",)"
    R"("namespace":"kube-system"}}},)"
    R"({"name":"other-ns","clientConfig":{"service":{"name":"hami-admission","namespace":"default"}}}]})";

const WebhookTarget kOurs{"kube-system", "hami-admission", {"hami-admission.kube-system.svc"}};

TEST(CaBundlePatch, SetsOnlyTheWebhooksCallingOurServiceGuardedByTheResourceVersion) {
  const CaBundlePatch p = ca_bundle_patch(kConfiguration, kOurs, "CA");
  EXPECT_EQ(p.matched, 2u);
  EXPECT_EQ(p.outdated, 2u);
  EXPECT_EQ(p.json, R"([{"op":"test","path":"/metadata/resourceVersion","value":"9"},)"
                    R"({"op":"add","path":"/webhooks/1/clientConfig/caBundle","value":"Q0E="},)"
                    R"({"op":"add","path":"/webhooks/3/clientConfig/caBundle","value":"Q0E="}])");
}

TEST(CaBundlePatch, UpToDateWebhooksAreNotPatched) {
  const CaBundlePatch p = ca_bundle_patch(kConfiguration, kOurs, "old");
  EXPECT_EQ(p.matched, 2u);
  EXPECT_EQ(p.outdated, 1u);
  EXPECT_EQ(p.json, R"([{"op":"test","path":"/metadata/resourceVersion","value":"9"},)"
                    R"({"op":"add","path":"/webhooks/3/clientConfig/caBundle","value":"b2xk"}])");
  const CaBundlePatch none = ca_bundle_patch(
      R"({"metadata":{"resourceVersion":"1"},"webhooks":[{"clientConfig":{"service":)"
      R"({"name":"s","namespace":"n"},"caBundle":"b2xk"}}]})",
      {"n", "s", {}}, "old");
  EXPECT_EQ(none.matched, 1u);
  EXPECT_EQ(none.outdated, 0u);
  EXPECT_EQ(none.json, "");
}

TEST(CaBundlePatch, AWebhookCallingOneOfTheCertificateHostsByUrlIsOurs) {
  constexpr const char* configuration =
      R"({"metadata":{"resourceVersion":"4"},"webhooks":[)"
      R"({"clientConfig":{"url":"https://127.0.0.1:18443/mutate-pod"}},)"
      R"({"clientConfig":{"url":"https://127.0.0.2:18443/mutate-pod"}},)"
      R"({"clientConfig":{"url":"https://[::1]/mutate-pod"}},)"
      R"({"clientConfig":{"url":"https://hami.example:8443/mutate-pod","caBundle":"Q0E="}},)"
      R"({"clientConfig":{"url":"http://127.0.0.1/mutate-pod"}},)"
      R"({"clientConfig":{"url":"https://user@127.0.0.1/mutate-pod"}}]})";
  const CaBundlePatch p = ca_bundle_patch(
      configuration, {"kube-system", "hami", {"hami.example", "127.0.0.1", "::1"}}, "CA");
  EXPECT_EQ(p.matched, 3u);
  EXPECT_EQ(p.outdated, 2u);
  EXPECT_EQ(p.json, R"([{"op":"test","path":"/metadata/resourceVersion","value":"4"},)"
                    R"({"op":"add","path":"/webhooks/0/clientConfig/caBundle","value":"Q0E="},)"
                    R"({"op":"add","path":"/webhooks/2/clientConfig/caBundle","value":"Q0E="}])");
}

TEST(CaBundlePatch, UrlHost) {
  EXPECT_EQ(https_url_host("https://127.0.0.1:8443/mutate-pod"), "127.0.0.1");
  EXPECT_EQ(https_url_host("https://Hami.example/x?y=1"), "Hami.example");
  EXPECT_EQ(https_url_host("https://[fd00::1]:443/"), "fd00::1");
  EXPECT_EQ(https_url_host("https://host"), "host");
  EXPECT_EQ(https_url_host("http://host/"), "");
  EXPECT_EQ(https_url_host("https://[::1/"), "");
  EXPECT_EQ(https_url_host("https://u:p@host/"), "");
  EXPECT_EQ(https_url_host(""), "");
}

TEST(CaBundlePatch, NoMatchingWebhook) {
  const CaBundlePatch p = ca_bundle_patch(kConfiguration, {"kube-system", "nobody", {}}, "CA");
  EXPECT_EQ(p.matched, 0u);
  EXPECT_EQ(p.json, "");
}

TEST(CaBundlePatch, ReplyThatIsNoConfigurationThrows) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{",
       "MutatingWebhookConfiguration reply is not JSON: Missing a name for object member. "
       "at offset 1"},
      {"{}", "MutatingWebhookConfiguration reply has no metadata"},
      {R"({"metadata":{}})", "MutatingWebhookConfiguration reply has no metadata.resourceVersion"},
  };
  for (const auto& [json, message] : cases) {
    try {
      ca_bundle_patch(json, {"n", "s", {}}, "CA");
      ADD_FAILURE() << json;
    } catch (const WebhookConfigurationFormatError& e) {
      EXPECT_EQ(e.what(), message);
    }
  }
}

}  // namespace
}  // namespace hami::webhook_tls
