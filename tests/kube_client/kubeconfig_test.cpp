// Kubeconfig parsing: every variant the client supports, and the exact
// message of every refusal.
#include "kube/kubeconfig.hpp"

#include <gtest/gtest.h>

#include <string>

#include "kube/api_config.hpp"
#include "kube/exec_token_source.hpp"
#include "temp_dir.hpp"

namespace hami::kube {
namespace {

using testing::TempDir;

constexpr std::string_view kTwoContexts = R"(apiVersion: v1
kind: Config
current-context: dev
preferences: {}
clusters:
  - name: dev-cluster
    cluster:
      server: https://10.0.0.10:6443
      certificate-authority-data: ZGV2LWNh
  - name: prod-cluster
    cluster:
      server: https://[fd00::10]:6443/
      certificate-authority: certs/prod-ca.pem
      tls-server-name: kubernetes.default.svc
      extensions: []
contexts:
  - name: dev
    context: {cluster: dev-cluster, user: dev-admin}
  - name: prod
    context: {cluster: prod-cluster, user: prod-bot, namespace: gpu-system}
users:
  - name: dev-admin
    user:
      client-certificate-data: Y2VydA==
      client-key-data: a2V5
  - name: prod-bot
    user:
      token: inline-token
)";

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ApiConfigError& e) {
    return e.what();
  }
  return "<no ApiConfigError>";
}

TEST(Kubeconfig, FixtureSampleUsesCurrentContext) {
  const std::string file = std::string(HAMI_FIXTURE_DIR) + "/apiserver/kubeconfig-sample.yaml";
  const ApiConfig config = load_kubeconfig(file);
  EXPECT_EQ(config.server, "https://10.0.0.10:6443");
  EXPECT_EQ(config.ca_pem, "\n");  // "Cg==" is a placeholder newline
  EXPECT_EQ(config.client_cert_pem, "\n");
  EXPECT_EQ(config.client_key_pem, "\n");
  EXPECT_EQ(config.namespace_, "kube-system");
  EXPECT_EQ(config.token, nullptr);
  EXPECT_FALSE(config.insecure_skip_verify);
  EXPECT_EQ(config.tls_server_name, "");
  EXPECT_EQ(config.origin, "kubeconfig " + file + " context dev");
}

TEST(Kubeconfig, CurrentContextWithCertificateData) {
  const ApiConfig config = parse_kubeconfig(std::string(kTwoContexts), "/cfg/config");
  EXPECT_EQ(config.server, "https://10.0.0.10:6443");
  EXPECT_EQ(config.ca_pem, "dev-ca");
  EXPECT_EQ(config.client_cert_pem, "cert");
  EXPECT_EQ(config.client_key_pem, "key");
  EXPECT_EQ(config.namespace_, "default");
  EXPECT_EQ(config.token, nullptr);
}

TEST(Kubeconfig, ExplicitContextWithRelativeCaFileAndToken) {
  TempDir dir;
  dir.write("certs/prod-ca.pem", "PROD CA PEM\n");
  const auto file = dir.write("config", kTwoContexts);
  const ApiConfig config = load_kubeconfig(file, "prod");
  EXPECT_EQ(config.server, "https://[fd00::10]:6443");  // trailing '/' dropped
  EXPECT_EQ(config.ca_pem, "PROD CA PEM\n");
  EXPECT_EQ(config.tls_server_name, "kubernetes.default.svc");
  EXPECT_EQ(config.namespace_, "gpu-system");
  ASSERT_NE(config.token, nullptr);
  EXPECT_EQ(config.token->token(), "inline-token");
  EXPECT_TRUE(config.client_cert_pem.empty());
  EXPECT_EQ(config.origin, "kubeconfig " + file.string() + " context prod");
}

TEST(Kubeconfig, CertificateAuthorityDataWinsOverFile) {
  const std::string text = R"(current-context: c
clusters: [{name: k, cluster: {server: "https://h:1", certificate-authority-data: ZGF0YQ==,
            certificate-authority: /nonexistent/ca.pem}}]
contexts: [{name: c, context: {cluster: k}}]
)";
  const ApiConfig config = parse_kubeconfig(text, "/cfg/config");
  EXPECT_EQ(config.ca_pem, "data");
  EXPECT_EQ(config.token, nullptr);  // no user: anonymous
}

TEST(Kubeconfig, ClientCertificateFilesResolveAgainstTheKubeconfigFolder) {
  TempDir dir;
  dir.write("pki/client.crt", "CLIENT CERT");
  dir.write("pki/client.key", "CLIENT KEY");
  const auto file = dir.write("sub/../config", R"(current-context: c
clusters: [{name: k, cluster: {server: "https://h:1", insecure-skip-tls-verify: true}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
users: [{name: u, user: {client-certificate: pki/client.crt, client-key: ./pki/client.key}}]
)");
  const ApiConfig config = load_kubeconfig(file);
  EXPECT_EQ(config.client_cert_pem, "CLIENT CERT");
  EXPECT_EQ(config.client_key_pem, "CLIENT KEY");
  EXPECT_TRUE(config.insecure_skip_verify);
  EXPECT_TRUE(config.ca_pem.empty());
}

TEST(Kubeconfig, TokenFileIsReadAndWinsOverInlineToken) {
  TempDir dir;
  dir.write("token", "file-token\n");
  const auto file = dir.write("config", R"(current-context: c
clusters: [{name: k, cluster: {server: "https://h:1"}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
users: [{name: u, user: {token: inline, tokenFile: token}}]
)");
  const ApiConfig config = load_kubeconfig(file);
  ASSERT_NE(config.token, nullptr);
  EXPECT_EQ(config.token->token(), "file-token");
  EXPECT_NE(dynamic_cast<FileTokenSource*>(config.token.get()), nullptr);
}

TEST(Kubeconfig, MissingTokenFileNamesTheKey) {
  const std::string text = R"(current-context: c
clusters: [{name: k, cluster: {server: "https://h:1"}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
users: [{name: u, user: {tokenFile: missing-token}}]
)";
  EXPECT_EQ(message_of([&] { parse_kubeconfig(text, "/nonexistent-dir/config"); }),
            "kubeconfig /nonexistent-dir/config: users[0].user.tokenFile: token file "
            "/nonexistent-dir/missing-token: cannot be read or is empty");
}

TEST(Kubeconfig, BasicCredentials) {
  const std::string text = R"(current-context: c
clusters: [{name: k, cluster: {server: "https://127.0.0.1:8443"}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
users: [{name: u, user: {username: admin, password: "s3cret"}}]
)";
  const ApiConfig config = parse_kubeconfig(text, "/cfg/config");
  EXPECT_EQ(config.basic_username, "admin");
  EXPECT_EQ(config.basic_password, "s3cret");
  EXPECT_EQ(config.server, "https://127.0.0.1:8443");
}

// A token or password would cross a plain-HTTP connection in clear.
TEST(Kubeconfig, CredentialsForAnHttpServerAreRefused) {
  const auto with_user = [](const std::string& user) {
    return "current-context: c\nclusters: [{name: k, cluster: {server: "
           "\"http://127.0.0.1:8080\"}}]\ncontexts: [{name: c, context: {cluster: k, user: "
           "u}}]\nusers: [{name: u, user: " +
           user + "}]\n";
  };
  EXPECT_EQ(message_of([&] { parse_kubeconfig(with_user("{token: t0k3n}"), "/x/config"); }),
            "kubeconfig /x/config: users[0].user.token: credentials are never sent to an http:// "
            "server (http://127.0.0.1:8080): use https://");
  EXPECT_EQ(
      message_of(
          [&] { parse_kubeconfig(with_user("{username: admin, password: s3cret}"), "/x/config"); }),
      "kubeconfig /x/config: users[0].user.password: credentials are never sent to an http:// "
      "server (http://127.0.0.1:8080): use https://");
  // No credential: an anonymous plain-HTTP server (a local proxy) is fine.
  EXPECT_EQ(parse_kubeconfig(with_user("{}"), "/x/config").server, "http://127.0.0.1:8080");
}

std::string with_exec(const std::string& exec, const std::string& server = "https://h:1",
                      const std::string& extra_user = {}) {
  return "current-context: c\nclusters: [{name: k, cluster: {server: \"" + server +
         "\", certificate-authority-data: Q0E=, tls-server-name: kube.local}}]\n"
         "contexts: [{name: c, context: {cluster: k, user: eks}}]\n"
         "users:\n  - name: other\n    user: {token: t}\n  - name: eks\n    user:\n" +
         extra_user + "      exec: " + exec + "\n";
}

const ExecPlugin& exec_plugin_of(const ApiConfig& config) {
  const auto* source = dynamic_cast<const ExecTokenSource*>(config.token.get());
  if (source == nullptr)
    throw std::runtime_error("the token source is not an ExecTokenSource");
  return source->plugin();
}

TEST(Kubeconfig, ExecUser) {
  const std::string text = R"(current-context: c
clusters: [{name: k, cluster: {server: "https://h:1"}}]
contexts: [{name: c, context: {cluster: k, user: eks}}]
users:
  - name: eks
    user:
      exec:
        apiVersion: client.authentication.k8s.io/v1
        command: aws
        args: [--region, eu-west-1, eks, get-token, --cluster-name, gpu]
        env:
          - {name: AWS_PROFILE, value: prod}
          - {name: EMPTY}
        installHint: install the AWS CLI
        interactiveMode: IfAvailable
        provideClusterInfo: false
        futureKey: ignored
)";
  const ApiConfig config = parse_kubeconfig(text, "/x/config");
  const ExecPlugin& plugin = exec_plugin_of(config);
  EXPECT_EQ(plugin.owner, "kubeconfig /x/config user \"eks\"");
  EXPECT_EQ(plugin.api_version, "client.authentication.k8s.io/v1");
  EXPECT_EQ(plugin.command, "aws");  // a bare name goes through $PATH
  EXPECT_EQ(plugin.args, (std::vector<std::string>{"--region", "eu-west-1", "eks", "get-token",
                                                   "--cluster-name", "gpu"}));
  EXPECT_EQ(plugin.env, (std::vector<std::pair<std::string, std::string>>{{"AWS_PROFILE", "prod"},
                                                                          {"EMPTY", ""}}));
  EXPECT_EQ(plugin.install_hint, "install the AWS CLI");
  EXPECT_FALSE(plugin.cluster.has_value());
  EXPECT_TRUE(config.client_cert_pem.empty());
  // One plugin run serves the token and the client certificate.
  ASSERT_NE(config.exec_credentials, nullptr);
  EXPECT_EQ(config.exec_credentials, dynamic_cast<const ExecTokenSource&>(*config.token).source());
}

TEST(Kubeconfig, ExecV1beta1DefaultsItsInteractiveModeAndGetsClusterInfo) {
  const ApiConfig config = parse_kubeconfig(
      with_exec(
          "{apiVersion: client.authentication.k8s.io/v1beta1, command: gke-gcloud-auth-plugin, "
          "provideClusterInfo: true}"),
      "/x/config");
  const ExecPlugin& plugin = exec_plugin_of(config);
  EXPECT_EQ(plugin.api_version, "client.authentication.k8s.io/v1beta1");
  ASSERT_TRUE(plugin.cluster.has_value());
  EXPECT_EQ(plugin.cluster->server, "https://h:1");
  EXPECT_EQ(plugin.cluster->ca_pem, "CA");
  EXPECT_EQ(plugin.cluster->tls_server_name, "kube.local");
  EXPECT_FALSE(plugin.cluster->insecure_skip_verify);
}

TEST(Kubeconfig, ExecCommandWithASlashIsRelativeToTheKubeconfigFolder) {
  const auto command = [](const std::string& name) {
    return exec_plugin_of(parse_kubeconfig(with_exec("{apiVersion: client.authentication.k8s.io/"
                                                     "v1beta1, command: \"" +
                                                     name + "\"}"),
                                           "/etc/hami/kubeconfig"))
        .command;
  };
  EXPECT_EQ(command("./bin/helper"), "/etc/hami/bin/helper");
  EXPECT_EQ(command("bin/helper"), "/etc/hami/bin/helper");
  EXPECT_EQ(command("/usr/local/bin/helper"), "/usr/local/bin/helper");
  EXPECT_EQ(command("kubelogin"), "kubelogin");
}

TEST(Kubeconfig, ExecRefusals) {
  const auto refusal = [](const std::string& exec, const std::string& server = "https://h:1",
                          const std::string& extra = {}) {
    return message_of([&] { parse_kubeconfig(with_exec(exec, server, extra), "/x/config"); });
  };
  EXPECT_EQ(refusal("{command: aws}"),
            "kubeconfig /x/config: users[1].user.exec.apiVersion is not set: use "
            "client.authentication.k8s.io/v1 or client.authentication.k8s.io/v1beta1");
  EXPECT_EQ(refusal("{apiVersion: client.authentication.k8s.io/v1alpha1, command: aws}"),
            "kubeconfig /x/config: users[1].user.exec.apiVersion "
            "client.authentication.k8s.io/v1alpha1 is no longer supported (as in client-go since "
            "1.24): use client.authentication.k8s.io/v1 or client.authentication.k8s.io/v1beta1");
  EXPECT_EQ(refusal("{apiVersion: v1, command: aws}"),
            "kubeconfig /x/config: users[1].user.exec.apiVersion: expected "
            "client.authentication.k8s.io/v1 or client.authentication.k8s.io/v1beta1, got \"v1\"");
  EXPECT_EQ(refusal("{apiVersion: client.authentication.k8s.io/v1, interactiveMode: Never}"),
            "kubeconfig /x/config: users[1].user.exec.command is not set");
  EXPECT_EQ(refusal("{apiVersion: client.authentication.k8s.io/v1, command: aws}"),
            "kubeconfig /x/config: users[1].user.exec.interactiveMode is not set (required by "
            "client.authentication.k8s.io/v1): use Never or IfAvailable");
  EXPECT_EQ(refusal("{apiVersion: client.authentication.k8s.io/v1, command: aws, "
                    "interactiveMode: Always}"),
            "kubeconfig /x/config: users[1].user.exec.interactiveMode Always needs a terminal, "
            "which this program never has: use Never or IfAvailable");
  EXPECT_EQ(refusal("{apiVersion: client.authentication.k8s.io/v1, command: aws, "
                    "interactiveMode: Sometimes}"),
            "kubeconfig /x/config: users[1].user.exec.interactiveMode: expected one of Never, "
            "IfAvailable, Always, got \"Sometimes\"");
  EXPECT_EQ(refusal("aws"),
            "kubeconfig /x/config: users[1].user.exec: expected a mapping, got \"aws\"");
  EXPECT_EQ(refusal("{apiVersion: client.authentication.k8s.io/v1beta1, command: aws, args: "
                    "eks}"),
            "kubeconfig /x/config: users[1].user.exec.args: expected a list, got \"eks\"");
  EXPECT_EQ(refusal("{apiVersion: client.authentication.k8s.io/v1beta1, command: aws, args: "
                    "[[a]]}"),
            "kubeconfig /x/config: users[1].user.exec.args[0]: expected a string, got a list");
  EXPECT_EQ(refusal("{apiVersion: client.authentication.k8s.io/v1beta1, command: aws, env: "
                    "[{value: x}]}"),
            "kubeconfig /x/config: users[1].user.exec.env[0].name: expected a variable name "
            "without '='");
  EXPECT_EQ(refusal("{apiVersion: client.authentication.k8s.io/v1beta1, command: aws, env: "
                    "[A=b]}"),
            "kubeconfig /x/config: users[1].user.exec.env[0]: expected a mapping, got \"A=b\"");
  EXPECT_EQ(refusal("{apiVersion: client.authentication.k8s.io/v1beta1, command: aws, "
                    "provideClusterInfo: maybe}"),
            "kubeconfig /x/config: users[1].user.exec.provideClusterInfo: expected true or "
            "false, got \"maybe\"");
  // The token it produces would cross a plain-HTTP connection in clear.
  EXPECT_EQ(refusal("{apiVersion: client.authentication.k8s.io/v1beta1, command: aws}",
                    "http://127.0.0.1:8080"),
            "kubeconfig /x/config: users[1].user.exec: credentials are never sent to an http:// "
            "server (http://127.0.0.1:8080): use https://");
  EXPECT_EQ(refusal("{apiVersion: client.authentication.k8s.io/v1beta1, command: aws}",
                    "https://h:1", "      token: t0k3n\n"),
            "kubeconfig /x/config: users[1].user.exec cannot be combined with "
            "users[1].user.token: use one of them");
  EXPECT_EQ(
      refusal("{apiVersion: client.authentication.k8s.io/v1beta1, command: aws}", "https://h:1",
              "      client-certificate-data: Yw==\n      client-key-data: aw==\n"),
      "kubeconfig /x/config: users[1].user.exec cannot be combined with "
      "users[1].user.client-certificate: use one of them");
  EXPECT_EQ(refusal("{apiVersion: client.authentication.k8s.io/v1beta1, command: aws}",
                    "https://h:1", "      username: admin\n"),
            "kubeconfig /x/config: users[1].user.exec cannot be combined with "
            "users[1].user.username: use one of them");
}

TEST(Kubeconfig, AuthProviderUserIsRefused) {
  const std::string text = R"(current-context: c
clusters: [{name: k, cluster: {server: "https://h:1"}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
users: [{name: u, user: {auth-provider: {name: oidc}}}]
)";
  EXPECT_EQ(
      message_of([&] { parse_kubeconfig(text, "/x/config"); }),
      "kubeconfig /x/config: users[0].user.auth-provider is not supported: use exec, a token or "
      "a client certificate");
}

TEST(Kubeconfig, MissingContextClusterAndUser) {
  EXPECT_EQ(
      message_of([&] { parse_kubeconfig(std::string(kTwoContexts), "/x/config", "staging"); }),
      "kubeconfig /x/config: context \"staging\" not found");
  const std::string no_cluster = R"(current-context: c
contexts: [{name: c, context: {cluster: gone, user: u}}]
clusters: [{name: k, cluster: {server: "https://h:1"}}]
)";
  EXPECT_EQ(message_of([&] { parse_kubeconfig(no_cluster, "/x/config"); }),
            "kubeconfig /x/config: cluster \"gone\" not found");
  const std::string no_user = R"(current-context: c
contexts: [{name: c, context: {cluster: k, user: u}}]
clusters: [{name: k, cluster: {server: "https://h:1"}}]
)";
  EXPECT_EQ(message_of([&] { parse_kubeconfig(no_user, "/x/config"); }),
            "kubeconfig /x/config: user \"u\" not found");
}

TEST(Kubeconfig, NoCurrentContext) {
  EXPECT_EQ(message_of([&] { parse_kubeconfig("clusters: []\n", "/x/config"); }),
            "kubeconfig /x/config: current-context is not set and no context was given");
}

TEST(Kubeconfig, ShapeAndValueErrors) {
  EXPECT_EQ(message_of([&] { parse_kubeconfig("- a\n- b\n", "/x/config"); }),
            "kubeconfig /x/config: expected a mapping at the top, got a list");
  EXPECT_EQ(message_of([&] {
              parse_kubeconfig("current-context: c\nkey: [unclosed\n", "/x/config");
            }).rfind("kubeconfig /x/config: line ", 0),
            0u);
  const std::string bad_base64 = R"(current-context: c
clusters: [{name: k, cluster: {server: "https://h:1", certificate-authority-data: "not*base64"}}]
contexts: [{name: c, context: {cluster: k}}]
)";
  EXPECT_EQ(message_of([&] { parse_kubeconfig(bad_base64, "/x/config"); }),
            "kubeconfig /x/config: clusters[0].cluster.certificate-authority-data: invalid base64");
  const std::string missing_ca = R"(current-context: c
clusters: [{name: k, cluster: {server: "https://h:1", certificate-authority: ca.pem}}]
contexts: [{name: c, context: {cluster: k}}]
)";
  EXPECT_EQ(message_of([&] { parse_kubeconfig(missing_ca, "/nonexistent-dir/config"); }),
            "kubeconfig /nonexistent-dir/config: clusters[0].cluster.certificate-authority: "
            "cannot read /nonexistent-dir/ca.pem");
  const std::string no_server = R"(current-context: c
clusters: [{name: k, cluster: {insecure-skip-tls-verify: true}}]
contexts: [{name: c, context: {cluster: k}}]
)";
  EXPECT_EQ(message_of([&] { parse_kubeconfig(no_server, "/x/config"); }),
            "kubeconfig /x/config: clusters[0].cluster.server is not set");
  const std::string bad_bool = R"(current-context: c
clusters: [{name: k, cluster: {server: "https://h:1", insecure-skip-tls-verify: maybe}}]
contexts: [{name: c, context: {cluster: k}}]
)";
  EXPECT_EQ(message_of([&] { parse_kubeconfig(bad_bool, "/x/config"); }),
            "kubeconfig /x/config: clusters[0].cluster.insecure-skip-tls-verify: expected true or "
            "false, got \"maybe\"");
  const std::string proxy = R"(current-context: c
clusters: [{name: k, cluster: {server: "https://h:1", proxy-url: "http://proxy:3128"}}]
contexts: [{name: c, context: {cluster: k}}]
)";
  EXPECT_EQ(message_of([&] { parse_kubeconfig(proxy, "/x/config"); }),
            "kubeconfig /x/config: clusters[0].cluster.proxy-url is not supported: reach the API "
            "server directly");
  const std::string half_cert = R"(current-context: c
clusters: [{name: k, cluster: {server: "https://h:1"}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
users: [{name: u, user: {client-certificate-data: Y2VydA==}}]
)";
  EXPECT_EQ(message_of([&] { parse_kubeconfig(half_cert, "/x/config"); }),
            "kubeconfig /x/config: users[0].user.client-certificate is set without client-key");
}

TEST(Kubeconfig, UnreadableFile) {
  EXPECT_EQ(message_of([] { load_kubeconfig("/nonexistent-dir/config"); }),
            "kubeconfig /nonexistent-dir/config: cannot be read");
}

TEST(Base64, DecodesPaddedUnpaddedAndWrapped) {
  EXPECT_EQ(decode_base64("Cg==", "x"), "\n");
  EXPECT_EQ(decode_base64("aGVsbG8", "x"), "hello");
  EXPECT_EQ(decode_base64("aGVs\nbG8h\n", "x"), "hello!");
  EXPECT_EQ(decode_base64("", "x"), "");
  EXPECT_THROW(decode_base64("a", "x"), ApiConfigError);
  EXPECT_THROW(decode_base64("aGVs=bG8", "x"), ApiConfigError);
  EXPECT_THROW(decode_base64("Cg=", "x"), ApiConfigError);
  EXPECT_THROW(decode_base64("Cg$=", "x"), ApiConfigError);
}

}  // namespace
}  // namespace hami::kube
