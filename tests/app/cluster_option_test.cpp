// The hami-scheduler binary with the cluster source on the command line
// (--cluster kubernetes | file:PATH) and --check-config of a kubernetes
// source, which probes the API server once and never hangs on it.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "child_process.hpp"

namespace hami::test {
namespace {

const std::string kBinary = HAMI_SCHEDULER_BINARY;
const std::string kPluginDir = HAMI_PLUGIN_DIR;
const std::string kSourceDir = HAMI_SOURCE_DIR;

class ClusterOption : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "hami-app-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
  // A kubeconfig naming a loopback port nothing listens on.
  std::string dead_kubeconfig() const {
    return write("kubeconfig",
                 "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: k\n"
                 "  cluster:\n    server: http://127.0.0.1:1\nusers:\n- name: u\n  user: {}\n"
                 "contexts:\n- name: c\n  context:\n    cluster: k\n    user: u\n");
  }
  std::filesystem::path dir;
};

TEST_F(ClusterOption, HelpListsIt) {
  const auto r = run({kBinary, "--help"});
  EXPECT_NE(r.out.find("--cluster=SOURCE"), std::string::npos) << r.out;
}

TEST_F(ClusterOption, FileOverrideReplacesTheConfiguredSource) {
  const auto kubeconfig = dead_kubeconfig();
  const auto cfg = write("k8s.yaml",
                         "tls:\n  selfSigned: true\ncluster:\n  source: kubernetes\n"
                         "  kubernetes: {kubeconfig: " +
                             kubeconfig + "}\n  leaderElection: {mode: follow}\n");
  const auto r = run({kBinary, "--config", cfg, "--cluster",
                      "file:" + kSourceDir + "/config/demo-cluster.yaml", "--check-config"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("cluster: file " + kSourceDir + "/config/demo-cluster.yaml ("),
            std::string::npos)
      << r.out;
}

TEST_F(ClusterOption, MalformedOverride) {
  const auto cfg = write("ok.yaml", "tls:\n  selfSigned: true\n");
  const auto r = run({kBinary, "--config", cfg, "--cluster", "etcd", "--check-config"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--cluster: expected kubernetes or file:PATH, got \\\"etcd\\\""),
            std::string::npos)
      << r.err;
}

TEST_F(ClusterOption, CheckConfigOfAnUnreachableApiServerReportsItQuickly) {
  const auto kubeconfig = dead_kubeconfig();
  const auto cfg = write("k8s.yaml",
                         "tls:\n  selfSigned: true\ncluster:\n  kubernetes: "
                         "{kubeconfig: " +
                             kubeconfig +
                             "}\n  leaderElection: {identity: replica-a, leaseName: "
                             "hami-scheduler, leaseNamespace: hami}\n");
  const auto started = std::chrono::steady_clock::now();
  const auto r = run({kBinary, "--config", cfg, "--cluster", "kubernetes", "--check-config"});
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(20));
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("cluster: kubernetes http://127.0.0.1:1 (kubeconfig " + kubeconfig +
                       " context c), API server not reachable: GET "
                       "http://127.0.0.1:1/api/v1/nodes?limit=1: Connection refused\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("leader election: none (always the leader)\n"), std::string::npos) << r.out;
}

TEST_F(ClusterOption, CheckConfigWithoutAUsableKubeconfigFails) {
  const auto cfg = write("k8s.yaml",
                         "tls:\n  selfSigned: true\ncluster:\n  source: kubernetes\n"
                         "  kubernetes: {kubeconfig: " +
                             write("empty", "") + "}\n");
  const auto r = run({kBinary, "--config", cfg, "--check-config"});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find(": FAILED: kubeconfig " + (dir / "empty").string()), std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace hami::test
