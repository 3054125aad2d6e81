// The hami-scheduler binary: --version, --help, --check-config and
// --list-plugins exit codes and output, start-up failures.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "child_process.hpp"

namespace hami::test {
namespace {

const std::string kBinary = HAMI_SCHEDULER_BINARY;
const std::string kPluginDir = HAMI_PLUGIN_DIR;
const std::string kSourceDir = HAMI_SOURCE_DIR;

// A kubeconfig naming a loopback port nothing listens on.
const std::string kDeadKubeconfig =
    "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: k\n"
    "  cluster:\n    server: http://127.0.0.1:1\nusers:\n- name: u\n  user: {}\n"
    "contexts:\n- name: c\n  context:\n    cluster: k\n    user: u\n";

class CommandLine : public ::testing::Test {
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
  std::filesystem::path dir;
};

TEST_F(CommandLine, Version) {
  const auto r = run({kBinary, "--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, std::string("hami-scheduler ") + HAMI_VERSION + " (plugin ABI 1.2)\n");
}

TEST_F(CommandLine, Help) {
  const auto r = run({kBinary, "--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* option : {"--config=FILE", "--listen=ADDR:PORT", "--plugin-dir=DIR",
                             "--check-config", "--list-plugins", "--version", "-v, --verbose"}) {
    EXPECT_NE(r.out.find(option), std::string::npos) << option << "\n" << r.out;
  }
  // The operator commands are listed after the options.
  for (const char* command : {"\n  explain  ", "\n  simulate  ", "\n  snapshot  "})
    EXPECT_NE(r.out.find(command), std::string::npos) << command << "\n" << r.out;
  // --listen is the webhook listener's address.
  EXPECT_NE(r.out.find("--listen=ADDR:PORT  webhook listener address, overrides listen in"),
            std::string::npos)
      << r.out;
}

TEST_F(CommandLine, HelpLeavesTheHamiFlagsToHelpHami) {
  const auto help = run({kBinary, "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_EQ(help.out.find("--kunlun-vmemory"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("\n--help-hami  "), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("HAMi's scheduler flags are accepted too"), std::string::npos)
      << help.out;
  const auto hami = run({kBinary, "--help-hami"});
  EXPECT_EQ(hami.exit_code, 0) << hami.err;
  EXPECT_EQ(hami.out.rfind("HAMi's scheduler flags (its main branch, v2.10 included)", 0), 0u)
      << hami.out;
  EXPECT_NE(hami.out.find("\n  --device-plugin-namespace\n"), std::string::npos) << hami.out;
  EXPECT_NE(hami.out.find("\n  --kunlun-vmemory\n"), std::string::npos) << hami.out;
}

TEST_F(CommandLine, DevicePluginNamespaceIsIgnoredWithAWarning) {
  const auto r =
      run({kBinary, "--device-plugin-namespace=kube-system", "--config",
           kSourceDir + "/config/dev.yaml", "--plugin-dir", kPluginDir, "--check-config"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(" warn msg=\"HAMi flag ignored\" flag=--device-plugin-namespace "
                       "reason=\"HAMi accepts /refit only with a token of this ServiceAccount (a "
                       "TokenReview); this host reviews no tokens: to limit who calls /refit, "
                       "require client certificates on the webhook listener (tls.clientCAFile, "
                       "docs/refit.md)\"\n"),
            std::string::npos)
      << r.err;
}

TEST_F(CommandLine, CheckConfigOfDevYamlSucceeds) {
  const auto r = run({kBinary, "--config", kSourceDir + "/config/dev.yaml", "--plugin-dir",
                      kPluginDir, "--check-config"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("config " + kSourceDir + "/config/dev.yaml: OK\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("listen: 127.0.0.1:8443 (webhook listener: /mutate-pod, /webhook, health, "
                       "/metrics)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("tls: self-signed certificate generated at start\n"), std::string::npos);
  EXPECT_NE(r.out.find("extender.listen: 127.0.0.1:8443 (extender listener, sharing the webhook "
                       "listener's loopback socket and tls)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("plugins: 4 loaded from " + kPluginDir + "\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cluster: file " + kSourceDir + "/config/demo-cluster.yaml ("),
            std::string::npos)
      << r.out;
  // dev.yaml sets no policy: hami-policies' defaults apply.
  EXPECT_NE(r.out.find("scheduler: hami-scheduler (node policy binpack (plugin default), gpu "
                       "policy spread (plugin default), allocate at bind)\n"),
            std::string::npos)
      << r.out;
}

TEST_F(CommandLine, CheckConfigShowsConfiguredPoliciesUnmarked) {
  const auto cfg =
      write("cfg.yaml", "tls: {selfSigned: true}\nplugins:\n  directory: " + kPluginDir +
                            "\n  scheduling:\n    - {name: hami-policies, library: "
                            "hami-policies.so}\nscheduler:\n  gpuPolicy: binpack\n");
  const auto r = run({kBinary, "--config", cfg, "--check-config"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(node policy binpack (plugin default), gpu policy binpack, allocate at "
                       "bind)\n"),
            std::string::npos)
      << r.out;
}

TEST_F(CommandLine, CheckConfigOfExampleYamlSucceeds) {
  const auto r = run({kBinary, "--config", kSourceDir + "/config/example.yaml", "--plugin-dir",
                      kPluginDir, "--check-config"});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("extender.listen: 127.0.0.1:8444 (extender listener: /filter, /schedule, "
                       "/prioritize, /bind, /allocations, health)\n"
                       "extender.tls: not set: the settings of tls\n"),
            std::string::npos)
      << r.out;
}

TEST_F(CommandLine, CheckConfigNamesTheExtenderListenersOwnTls) {
  ASSERT_EQ(std::system(("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes "
                         "-subj /CN=kube-scheduler-ca -days 1 -keyout '" +
                         (dir / "ca.key").string() + "' -out '" + (dir / "ca.pem").string() +
                         "' >/dev/null 2>&1")
                            .c_str()),
            0);
  const auto cfg = write("cfg.yaml",
                         "listen: 0.0.0.0:8443\ntls: {selfSigned: true}\n"
                         "extender:\n  listen: 0.0.0.0:8444\n"
                         "  tls: {selfSigned: true, clientCAFile: ca.pem}\n");
  const auto r = run({kBinary, "--config", cfg, "--check-config"});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("listen: 0.0.0.0:8443 (webhook listener: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("extender.listen: 0.0.0.0:8444 (extender listener: "), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("extender.tls: self-signed certificate generated at start; client "
                       "certificates required (CA " +
                       (dir / "ca.pem").string() + ")\n"),
            std::string::npos)
      << r.out;
}

TEST_F(CommandLine, CheckConfigNamesTheExtenderTlsKeyOfABadFile) {
  write("ca.pem", "not a certificate\n");
  const auto cfg = write("cfg.yaml",
                         "tls: {selfSigned: true}\n"
                         "extender: {tls: {selfSigned: true, clientCAFile: ca.pem}}\n");
  const auto r = run({kBinary, "--config", cfg, "--check-config"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("FAILED: extender.tls.clientCAFile \"" + (dir / "ca.pem").string() + "\": "),
            std::string::npos)
      << r.out;
}

TEST_F(CommandLine, ListenCannotTakeDevYamlsSharedSocketOffLoopback) {
  const auto r = run({kBinary, "--config", kSourceDir + "/config/dev.yaml", "--plugin-dir",
                      kPluginDir, "--listen", "10.255.255.1:8443", "--check-config"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("error=\"--listen: \\\"10.255.255.1:8443\\\" is not a loopback address, "
                       "but " +
                       kSourceDir +
                       "/config/dev.yaml shares the webhook listener's socket with the extender "
                       "listener, which is allowed on loopback, or on a wildcard address "
                       "(0.0.0.0) whose loopback connections alone get the extender verbs; give "
                       "extender.listen an address of its own there\""),
            std::string::npos)
      << r.err;
}

TEST_F(CommandLine, ListenOntoAWildcardKeepsDevYamlsExtenderOnLoopback) {
  const auto r = run({kBinary, "--config", kSourceDir + "/config/dev.yaml", "--plugin-dir",
                      kPluginDir, "--listen", "0.0.0.0:8443", "--check-config"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("extender.listen: 127.0.0.1:8443 (extender listener: /filter, /schedule, "
                       "/prioritize, /bind, /allocations on the webhook listener's socket "
                       "0.0.0.0:8443 for connections made to a loopback address only, with its "
                       "tls)\n"),
            std::string::npos)
      << r.out;
}

TEST_F(CommandLine, CheckConfigFailsOnAConfigError) {
  const auto cfg = write("bad.yaml", "tls:\n  selfSigned: true\nserver:\n  maxThreads: abc\n");
  const auto r = run({kBinary, "--config", cfg, "--check-config"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("error msg=\"invalid configuration\" error=\"" + cfg +
                       ": server.maxThreads: expected a positive integer, got \\\"abc\\\"\""),
            std::string::npos)
      << r.err;
}

TEST_F(CommandLine, CheckConfigFailsOnAMissingPluginNamingTheFile) {
  const auto cfg =
      write("cfg.yaml", "tls: {selfSigned: true}\nplugins:\n  directory: " + kPluginDir +
                            "\n  devices:\n    - {name: ghost, library: "
                            "ghost.so}\n");
  const auto r = run({kBinary, "--config", cfg, "--check-config"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(kPluginDir + "/ghost.so"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("FAILED"), std::string::npos) << r.out;
}

TEST_F(CommandLine, CheckConfigFailsOnAnUndeclaredPolicy) {
  const auto cfg =
      write("cfg.yaml", "tls: {selfSigned: true}\nplugins:\n  directory: " + kPluginDir +
                            "\n  scheduling:\n    - {name: hami-policies, library: "
                            "hami-policies.so}\nscheduler:\n  nodePolicy: random\n");
  const auto r = run({kBinary, "--config", cfg, "--check-config"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("scheduler.nodePolicy: no scheduling plugin declares the node policy "
                       "\\\"random\\\""),
            std::string::npos)
      << r.err;
}

TEST_F(CommandLine, CheckConfigFailsOnUnreadableTlsMaterial) {
  const auto cert = write("cert.pem", "not a certificate\n");
  const auto cfg = write("cfg.yaml", "tls:\n  certFile: cert.pem\n  keyFile: cert.pem\n");
  const auto r = run({kBinary, "--config", cfg, "--check-config"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("tls.certFile \\\"" + cert + "\\\": cannot load the certificate chain"),
            std::string::npos)
      << r.err;
}

TEST_F(CommandLine, UnknownOption) {
  const auto r = run({kBinary, "--bogus", "--check-config"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("error msg=\"invalid command line\" error=\"Unknown option specified: "
                       "bogus\" help=\"see --help\""),
            std::string::npos)
      << r.err;
}

TEST_F(CommandLine, OptionWithoutItsArgument) {
  const auto r = run({kBinary, "--check-config", "--config"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("msg=\"invalid command line\""), std::string::npos) << r.err;
}

TEST_F(CommandLine, UnexpectedArgument) {
  const auto r = run({kBinary, "--config", kSourceDir + "/config/dev.yaml", "extra"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("msg=\"unexpected argument\" argument=extra"), std::string::npos) << r.err;
}

TEST_F(CommandLine, CheckConfigFailsOnABrokenClusterSnapshot) {
  const auto snapshot = write("cluster.yaml", "nodes: [1, 2\n");
  const auto cfg = write("cfg.yaml", "tls: {selfSigned: true}\ncluster: {file: cluster.yaml}\n");
  const auto r = run({kBinary, "--config", cfg, "--check-config"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(snapshot), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("FAILED"), std::string::npos) << r.out;
}

// Without --config the built-in defaults apply: the installed plugins,
// the API server. Here the plugin folder of the build and a kubeconfig
// naming a port nothing listens on.
TEST_F(CommandLine, WithoutConfigTheBuiltInDefaultsApply) {
  const auto kubeconfig = write("kubeconfig", kDeadKubeconfig);
  const auto r =
      run({kBinary, "--plugin-dir", kPluginDir, "--check-config"}, {"KUBECONFIG=" + kubeconfig});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.out.rfind("config (built-in defaults, no --config): OK\n"
                        "listen: 127.0.0.1:8443 (webhook listener: /mutate-pod, /webhook, health, "
                        "/metrics)\n"
                        "tls: self-signed certificate generated at start\n"
                        "extender.listen: 127.0.0.1:8444 (extender listener: /filter, /schedule, "
                        "/prioritize, /bind, /allocations, health)\n"
                        "extender.tls: not set: the settings of tls\n"
                        "plugins: 4 loaded from " +
                            kPluginDir + "\n",
                        0),
            0u)
      << r.out;
  EXPECT_NE(r.out.find("cluster: kubernetes http://127.0.0.1:1 (kubeconfig " + kubeconfig +
                       " context c), API server not reachable: "),
            std::string::npos)
      << r.out;
  EXPECT_NE(
      r.out.find("kubernetes client: qps 200, burst 400, request timeout 30s, events v1\n"
                 "leader election: none (always the leader)\n"
                 "leader role labels: none written: POD_NAMESPACE is not set "
                 "(hami.io/scheduler-role on pods app.kubernetes.io/component=hami-scheduler)\n"
                 "scheduler: hami-scheduler (node policy binpack (plugin default), gpu "
                 "policy spread (plugin default), allocate at filter)\n"
                 "scheduler.nodeLock: timeout 300s, pod-group retry 28s\n"
                 "plugins.deviceConfigFile: none (each device plugin's defaults)\n"
                 "plugins.admission: vgpu {}\n"
                 "metrics: /metrics on the webhook listener, legacy names off\n"
                 "log: level info, format text\n"),
      std::string::npos)
      << r.out;
}

TEST_F(CommandLine, WithoutConfigThePluginsComeFromTheInstalledFolder) {
  if (std::filesystem::exists("/usr/lib/hami-scheduler/plugins/nvidia.so"))
    GTEST_SKIP() << "the plugins are installed on this machine";
  const auto kubeconfig = write("kubeconfig", kDeadKubeconfig);
  const auto r = run({kBinary, "--check-config"}, {"KUBECONFIG=" + kubeconfig});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("config (built-in defaults, no --config): FAILED: "), std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("/usr/lib/hami-scheduler/plugins"), std::string::npos) << r.err;
}

TEST_F(CommandLine, MalformedListenOverride) {
  const auto cfg = write("cfg.yaml", "tls: {selfSigned: true}\n");
  const auto r = run({kBinary, "--config", cfg, "--listen", "nowhere", "--check-config"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--listen: expected ADDR:PORT"), std::string::npos) << r.err;
}

TEST_F(CommandLine, ListPlugins) {
  const auto r = run({kBinary, "--config", kSourceDir + "/config/dev.yaml", "--plugin-dir",
                      kPluginDir, "--list-plugins"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("NAME           KIND        PLUGIN         VERSION  ABI  FILE\n", 0), 0u)
      << r.out;
  EXPECT_NE(r.out.find("nvidia         device      nvidia         1.0.0    1.2  " + kPluginDir +
                       "/nvidia.so\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("vgpu           admission   vgpu"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("hami-policies  scheduling  hami-policies"), std::string::npos) << r.out;
}

TEST_F(CommandLine, StartFailsOnAMissingPluginNamingTheFile) {
  const auto cfg = write("cfg.yaml",
                         "listen: 127.0.0.1:0\ntls: {selfSigned: true}\n"
                         "extender: {listen: 127.0.0.1:0}\nplugins:\n"
                         "  directory: " +
                             kPluginDir +
                             "\n  devices:\n    - {name: ghost, library: "
                             "ghost.so}\n");
  const auto r = run({kBinary, "--config", cfg});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("msg=\"start failed\""), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(kPluginDir + "/ghost.so"), std::string::npos) << r.err;
}

TEST_F(CommandLine, JsonLogFormat) {
  const auto cfg = write("cfg.yaml",
                         "tls: {selfSigned: true}\nlog: {format: json}\n"
                         "scheduler: {allocateAt: nowhere}\n");
  const auto r = run({kBinary, "--config", cfg, "--check-config"});
  EXPECT_EQ(r.exit_code, 1);
  // The config error happens before the format is known: text.
  EXPECT_NE(r.err.find("msg=\"invalid configuration\""), std::string::npos) << r.err;
  const auto ok = write("ok.yaml",
                        "tls: {selfSigned: true}\nlog: {format: json}\nplugins:\n"
                        "  directory: " +
                            kPluginDir +
                            "\n  devices:\n    - {name: nvidia, library: "
                            "nvidia.so}\n");
  const auto r2 = run({kBinary, "--config", ok, "--check-config"});
  EXPECT_EQ(r2.exit_code, 0) << r2.err;
  EXPECT_EQ(r2.err.rfind("{\"ts\":\"", 0), 0u) << r2.err;
  EXPECT_NE(r2.err.find("\"level\":\"info\",\"msg\":\"plugin 'nvidia'"), std::string::npos)
      << r2.err;
}

}  // namespace
}  // namespace hami::test
