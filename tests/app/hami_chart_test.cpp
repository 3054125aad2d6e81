// The hami-scheduler binary started as HAMi v2.10's Helm chart starts its
// scheduler container, `vgpu-scheduler-extender`: no --config, HAMi's
// flags only.
//
// kChartArgs is the container's `command` (after the program name,
// `scheduler`) from charts/hami/templates/scheduler/deployment.yaml of
// Project-HAMi/HAMi at tag v2.10.0 (commit 4707fb02), rendered with the
// chart's default values (charts/hami/values.yaml): admissionWebhook
// enabled (so --http_bind=0.0.0.0:443 and the TLS files), schedulerName
// hami-scheduler, scheduler.metricsBindAddress ":9395", default policies
// binpack/spread, forceOverwriteDefaultScheduler true, leaderElect true,
// devices.ascend and devices.iluvatar disabled, no nodeLabelSelector, no
// legacyMetrics, scheduler.extender.extraArgs [--debug, -v=4], release
// namespace kube-system. The chart also sets POD_NAME and POD_NAMESPACE
// from the downward API.
//
// What the tests change, and only that: the three files the chart mounts
// (/tls/tls.crt, /tls/tls.key, /device-config.yaml) are made in a
// temporary folder; --plugin-dir names this build's plugins (the image
// installs them in the default folder); KUBECONFIG names an API server that
// does not answer; serving binds port 0 instead of 443 and 9395.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "child_process.hpp"
#include "test_support.hpp"

namespace hami::test {
namespace {

const std::string kBinary = HAMI_SCHEDULER_BINARY;
const std::string kPluginDir = HAMI_PLUGIN_DIR;
const std::string kSourceDir = HAMI_SOURCE_DIR;
const std::string kPodName = "hami-scheduler-5d8f7c9b6-x2x4q";

const std::vector<std::string> kChartArgs = {
    "--http_bind=0.0.0.0:443",
    "--cert_file=/tls/tls.crt",
    "--key_file=/tls/tls.key",
    "--scheduler-name=hami-scheduler",
    "--metrics-bind-address=:9395",
    "--node-scheduler-policy=binpack",
    "--gpu-scheduler-policy=spread",
    "--force-overwrite-default-scheduler=true",
    "--device-config-file=/device-config.yaml",
    "--leader-elect=true",
    "--leader-elect-resource-name=hami-scheduler",
    "--leader-elect-resource-namespace=kube-system",
    "--debug",
    "-v=4",
};

constexpr const char* kDeadKubeconfig =
    "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: k\n"
    "  cluster:\n    server: http://127.0.0.1:1\nusers:\n- name: u\n  user: {}\n"
    "contexts:\n- name: c\n  context:\n    cluster: k\n    user: u\n";

class HamiChart : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "hami-chart-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir = tmpl;
    std::filesystem::create_directories(dir / "tls");
    ASSERT_EQ(std::system(("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes "
                           "-subj /CN=hami-scheduler.kube-system.svc -days 1 -keyout '" +
                           (dir / "tls/tls.key").string() + "' -out '" +
                           (dir / "tls/tls.crt").string() + "' >/dev/null 2>&1")
                              .c_str()),
              0);
    // HAMi's chart default device config (config/device-config.yaml is it).
    std::filesystem::copy_file(kSourceDir + "/config/device-config.yaml",
                               dir / "device-config.yaml");
    std::ofstream(dir / "kubeconfig") << kDeadKubeconfig;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }

  // The chart's arguments with the mounted files in `dir`, then `extra`.
  std::vector<std::string> command(const std::vector<std::string>& args,
                                   const std::vector<std::string>& extra) const {
    std::vector<std::string> out{kBinary};
    for (std::string a : args) {
      for (const char* mounted : {"/tls/tls.crt", "/tls/tls.key", "/device-config.yaml"}) {
        if (const auto at = a.find(std::string("=") + mounted); at != std::string::npos)
          a = a.substr(0, at + 1) + (dir / (mounted + 1)).string();
      }
      out.push_back(a);
    }
    out.insert(out.end(), extra.begin(), extra.end());
    return out;
  }
  std::vector<std::string> environment() const {
    return {"POD_NAME=" + kPodName, "POD_NAMESPACE=kube-system",
            "KUBECONFIG=" + (dir / "kubeconfig").string()};
  }

  std::filesystem::path dir;
};

TEST_F(HamiChart, CheckConfigPrintsTheEffectiveConfig) {
  const auto r =
      run(command(kChartArgs, {"--plugin-dir", kPluginDir, "--check-config"}), environment());
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  const std::string d = dir.string();
  EXPECT_EQ(r.out.rfind(
                "config (built-in defaults, no --config): OK\n"
                "listen: 0.0.0.0:443 (webhook listener: /mutate-pod, /webhook, health, /metrics)\n"
                "tls: certificate " +
                    d + "/tls/tls.crt, key " + d +
                    "/tls/tls.key\n"
                    // Where the chart's KubeSchedulerConfiguration calls the extender.
                    "extender.listen: 127.0.0.1:443 (extender listener: /filter, /schedule, "
                    "/prioritize, /bind, /allocations on the webhook listener's socket "
                    "0.0.0.0:443 for connections made to a loopback address only, with its tls)\n"
                    "plugins: 4 loaded from " +
                    kPluginDir + "\n",
                0),
            0u)
      << r.out;
  EXPECT_NE(r.out.find("cluster: kubernetes http://127.0.0.1:1 (kubeconfig " + d +
                       "/kubeconfig context c), API server not reachable: "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("kubernetes client: qps 200, burst 400, request timeout 30s, events v1\n"
                       "leader election: follow lease kube-system/hami-scheduler as " +
                       kPodName +
                       "\n"
                       "leader role labels: hami.io/scheduler-role=leader on " +
                       kPodName +
                       ", =follower on the other pods app.kubernetes.io/component=hami-scheduler "
                       "in namespace kube-system\n"
                       "scheduler: hami-scheduler (node policy binpack, gpu policy spread, "
                       "allocate at filter)\n"
                       "scheduler.nodeLock: timeout 300s, pod-group retry 28s\n"
                       "plugins.deviceConfigFile: " +
                       d +
                       "/device-config.yaml\n"
                       "plugins.admission: vgpu {\"forceOverwriteDefaultScheduler\":true}\n"
                       "metrics: /metrics on the webhook listener and on :9395 (plain HTTP), "
                       "legacy names off\n"
                       "log: level info, format text\n"),
            std::string::npos)
      << r.out;
  // The one flag without a meaning here is named, with why.
  EXPECT_NE(r.err.find(" warn msg=\"HAMi flag ignored\" flag=--debug reason=\"HAMi sets a debug "
                       "flag that no scheduler code reads (-v 5 or this host's -v logs at debug "
                       "level)\"\n"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("warn msg=\"HAMi flag"), r.err.rfind("warn msg=\"HAMi flag")) << r.err;
  EXPECT_EQ(r.err.find("error"), std::string::npos) << r.err;
}

// The chart's other branches: admissionWebhook.enabled false (plain HTTP
// on port 80 in HAMi), Ascend and Iluvatar enabled, a nodeLabelSelector,
// legacyMetrics, and extraArgs setting the node lock.
TEST_F(HamiChart, TheOtherBranchesOfTheTemplate) {
  const std::vector<std::string> args = {
      "--http_bind=0.0.0.0:80",
      "--scheduler-name=hami-scheduler",
      "--metrics-bind-address=:9395",
      "--node-scheduler-policy=spread",
      "--gpu-scheduler-policy=binpack",
      "--force-overwrite-default-scheduler=false",
      "--device-config-file=/device-config.yaml",
      "--leader-elect=false",
      "--leader-elect-resource-name=hami-scheduler",
      "--leader-elect-resource-namespace=kube-system",
      "--enable-ascend=true",
      "--enable-iluvatar=true",
      "--node-label-selector=gpu=on,zone=a",
      "--legacy-metrics=true",
      "--node-lock-timeout=10m",
      "--node-lock-retry-timeout",
      "20s",
      "-v",
      "5",
  };
  const auto r = run(command(args, {"--plugin-dir", kPluginDir, "--check-config"}), environment());
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("listen: 0.0.0.0:80 (webhook listener"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tls: self-signed certificate generated at start\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("extender.listen: 127.0.0.1:80 (extender listener"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("leader election: none (always the leader)\n"
                       "leader role labels: hami.io/scheduler-role=leader on " +
                       kPodName +
                       ", =follower on the other pods app.kubernetes.io/component=hami-scheduler "
                       "in namespace kube-system\n"
                       "scheduler: hami-scheduler (node policy spread, gpu policy binpack, "
                       "allocate at filter)\n"
                       "scheduler.nodeLock: timeout 600s, pod-group retry 20s\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("plugins.admission: vgpu {\"forceOverwriteDefaultScheduler\":false}\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("legacy names on\nlog: level debug, format text\n"), std::string::npos)
      << r.out;
  for (const std::string warning :
       {"warn msg=\"HAMi flag applied differently\" flag=--http_bind reason=\"without "
        "--cert_file and --key_file HAMi serves plain HTTP; this host serves HTTPS only, here "
        "with a self-signed certificate",
        "warn msg=\"HAMi flag ignored\" flag=--enable-ascend reason=\"no Ascend device plugin "
        "ships with this host (its device plugins: nvidia, amd)\"",
        "warn msg=\"HAMi flag ignored\" flag=--enable-iluvatar reason=\"no Iluvatar device "
        "plugin ships with this host (its device plugins: nvidia, amd)\"",
        "warn msg=\"HAMi flag ignored\" flag=--node-label-selector reason=\"not supported: "}) {
    EXPECT_NE(r.err.find(warning), std::string::npos) << warning << "\n" << r.err;
  }
}

TEST_F(HamiChart, ABadValueIsAnErrorNamingTheFlag) {
  auto args = kChartArgs;
  args.push_back("--node-lock-timeout=5 minutes");
  const auto r = run(command(args, {"--plugin-dir", kPluginDir, "--check-config"}), environment());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("error msg=\"invalid command line\" error=\"--node-lock-timeout: expected "
                       "a Go duration (e.g. 5m, 28s, 1h30m), got \\\"5 minutes\\\"\" help=\"see "
                       "--help\""),
            std::string::npos)
      << r.err;
  args = kChartArgs;
  args.push_back("--gpu-scheduler-policy=fastest");
  const auto policy =
      run(command(args, {"--plugin-dir", kPluginDir, "--check-config"}), environment());
  EXPECT_EQ(policy.exit_code, 1);
  EXPECT_NE(policy.err.find("error=\"--gpu-scheduler-policy: expected binpack, spread, "
                            "topology-aware, mutex or numa, or a comma list of them, got "
                            "\\\"fastest\\\"\""),
            std::string::npos)
      << policy.err;
}

// Served with the chart's flags, the extender verbs answer where the
// chart's KubeSchedulerConfiguration calls them (https://127.0.0.1:PORT)
// and nowhere else; the webhook and health answer on every address.
TEST_F(HamiChart, ServesTheExtenderVerbsOnLoopbackOnly) {
  auto args = kChartArgs;
  args[0] = "--http_bind=0.0.0.0:0";
  args[4] = "--metrics-bind-address=127.0.0.1:0";
  ChildProcess child(command(args, {"--plugin-dir", kPluginDir}), environment());
  const auto listening = child.wait_for_stderr_line("msg=listening", std::chrono::seconds(30));
  ASSERT_TRUE(listening.has_value()) << child.err();
  EXPECT_NE(listening->find(" listener=webhook+extender(loopback) address=0.0.0.0:"),
            std::string::npos)
      << *listening;
  const auto at = listening->find("address=0.0.0.0:") + 16;
  const auto port = static_cast<uint16_t>(std::stoi(listening->substr(at)));
  const auto ctx = make_client_ctx({});
  const auto status = [&](const std::string& ip, const std::string& method,
                          const std::string& path) {
    TlsConnection conn(ctx.get(), port, ip);
    EXPECT_TRUE(conn.handshake()) << conn.error();
    std::string request = method + " " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n";
    if (method == "POST")
      request += "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
    else
      request += "\r\n";
    EXPECT_TRUE(conn.send(request));
    const auto raw = conn.read_response();
    return raw ? parse_response(*raw).status : -1;
  };
  // Extender verbs answer HTTP 200 with their error inside (no pod).
  EXPECT_EQ(status("127.0.0.1", "POST", "/filter"), 200);
  EXPECT_EQ(status("127.0.0.1", "POST", "/bind"), 200);
  EXPECT_EQ(status("127.0.0.1", "POST", "/webhook"), 400);
  EXPECT_EQ(status("127.0.0.1", "GET", "/healthz"), 200);
  const auto ip = non_loopback_ipv4();
  if (ip) {
    EXPECT_EQ(status(*ip, "POST", "/filter"), 404);
    EXPECT_EQ(status(*ip, "POST", "/bind"), 404);
    EXPECT_EQ(status(*ip, "POST", "/webhook"), 400);
    EXPECT_EQ(status(*ip, "GET", "/healthz"), 200);
  }
  child.signal(SIGTERM);
  EXPECT_EQ(child.wait(std::chrono::seconds(30)), 0) << child.err();
  if (!ip)
    GTEST_SKIP() << "this machine has no IPv4 address besides loopback";
}

}  // namespace
}  // namespace hami::test
