// In-cluster configuration and the resolution order of resolve_api_config.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "kube/api_config.hpp"
#include "temp_dir.hpp"

namespace hami::kube {
namespace {

using testing::TempDir;

GetEnv env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    if (it == vars.end())
      return std::nullopt;
    return it->second;
  };
}

class InCluster : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("token", "account-token\n");
    dir_.write("ca.crt", "CA PEM\n");
    dir_.write("namespace", "gpu-system\n");
  }
  TempDir dir_;
};

TEST_F(InCluster, ReadsTheServiceAccount) {
  const ApiConfig config = in_cluster_config(
      env_of({{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}}),
      dir_.path());
  EXPECT_EQ(config.server, "https://10.96.0.1:443");
  EXPECT_EQ(config.ca_pem, "CA PEM\n");
  ASSERT_NE(config.token, nullptr);
  EXPECT_EQ(config.token->token(), "account-token");
  EXPECT_NE(dynamic_cast<FileTokenSource*>(config.token.get()), nullptr);
  EXPECT_EQ(config.namespace_, "gpu-system");
  EXPECT_EQ(config.origin, "in-cluster");
  EXPECT_FALSE(config.insecure_skip_verify);
}

TEST_F(InCluster, BracketsIpv6Hosts) {
  const ApiConfig config = in_cluster_config(
      env_of({{"KUBERNETES_SERVICE_HOST", "fd00:10:96::1"}, {"KUBERNETES_SERVICE_PORT", "6443"}}),
      dir_.path());
  EXPECT_EQ(config.server, "https://[fd00:10:96::1]:6443");
}

TEST_F(InCluster, NamespaceDefaultsWhenTheFileIsAbsent) {
  std::filesystem::remove(dir_.path() / "namespace");
  const ApiConfig config = in_cluster_config(
      env_of({{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}}),
      dir_.path());
  EXPECT_EQ(config.namespace_, "default");
}

TEST_F(InCluster, MissingVariablesAreNamed) {
  try {
    in_cluster_config(env_of({{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}}), dir_.path());
    FAIL() << "expected ApiConfigError";
  } catch (const ApiConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "in-cluster configuration: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT "
                 "must both be set (missing KUBERNETES_SERVICE_PORT)");
  }
  try {
    in_cluster_config(env_of({{"KUBERNETES_SERVICE_HOST", ""}, {"KUBERNETES_SERVICE_PORT", "1"}}),
                      dir_.path());
    FAIL() << "expected ApiConfigError";
  } catch (const ApiConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("(missing KUBERNETES_SERVICE_HOST)"), std::string::npos);
  }
}

TEST_F(InCluster, MissingFilesAreNamed) {
  const auto env =
      env_of({{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}});
  std::filesystem::remove(dir_.path() / "token");
  try {
    in_cluster_config(env, dir_.path());
    FAIL() << "expected ApiConfigError";
  } catch (const ApiConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "token file " + (dir_.path() / "token").string() + ": cannot be read or is empty");
  }
  std::filesystem::remove(dir_.path() / "ca.crt");
  try {
    in_cluster_config(env, dir_.path());
    FAIL() << "expected ApiConfigError";
  } catch (const ApiConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "in-cluster configuration: " + (dir_.path() / "ca.crt").string() +
                  ": cannot be read or is empty");
  }
}

constexpr std::string_view kMinimalKubeconfig = R"(current-context: c
clusters: [{name: k, cluster: {server: "https://h:1"}}]
contexts: [{name: c, context: {cluster: k}}]
)";

TEST(ResolveApiConfig, ExplicitPathWinsOverInCluster) {
  TempDir dir;
  const auto file = dir.write("explicit", kMinimalKubeconfig);
  const ApiConfig config = resolve_api_config(
      file, env_of({{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}}));
  EXPECT_EQ(config.origin, "kubeconfig " + file.string() + " context c");
}

TEST(ResolveApiConfig, InClusterBeforeKubeconfigVariable) {
  TempDir dir;
  const auto file = dir.write("k", kMinimalKubeconfig);
  try {
    // The real service-account folder does not exist on a build machine:
    // the error proves the in-cluster path was taken.
    resolve_api_config({}, env_of({{"KUBERNETES_SERVICE_HOST", "10.96.0.1"},
                                   {"KUBERNETES_SERVICE_PORT", "443"},
                                   {"KUBECONFIG", file.string()}}));
    FAIL() << "expected ApiConfigError";
  } catch (const ApiConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "in-cluster configuration: /var/run/secrets/kubernetes.io/serviceaccount/ca.crt: "
              "cannot be read or is empty");
  }
}

TEST(ResolveApiConfig, FirstFileOfKubeconfigList) {
  TempDir dir;
  const auto first = dir.write("first", kMinimalKubeconfig);
  const auto second = dir.write("second", kMinimalKubeconfig);
  const ApiConfig config = resolve_api_config(
      {}, env_of({{"KUBECONFIG", first.string() + ":" + second.string()}, {"HOME", "/nowhere"}}));
  EXPECT_EQ(config.origin, "kubeconfig " + first.string() + " context c");
}

TEST(ResolveApiConfig, HomeKubeConfig) {
  TempDir dir;
  const auto file = dir.write(".kube/config", kMinimalKubeconfig);
  const ApiConfig config = resolve_api_config({}, env_of({{"HOME", dir.path().string()}}));
  EXPECT_EQ(config.origin, "kubeconfig " + file.string() + " context c");
}

TEST(ResolveApiConfig, NothingConfigured) {
  EXPECT_THROW(resolve_api_config({}, env_of({})), ApiConfigError);
}

}  // namespace
}  // namespace hami::kube
