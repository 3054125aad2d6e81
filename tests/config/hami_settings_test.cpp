// HAMi's flags applied onto the configuration (config/hami_settings.hpp):
// each flag's key, client-go's meaning of 0, durations in whole seconds,
// --http_bind placing the extender verbs where HAMi's kube-scheduler config
// calls them, the notices for what is applied differently, and the exact
// errors. Also the built-in defaults used without a config file.
#include "config/hami_settings.hpp"

#include "config/builtin_config.hpp"
#include "config_fixture.hpp"

namespace hami::test {
namespace {

using namespace std::chrono_literals;
using HamiSettingsTest = ConfigTest;

config::HostConfig builtin() {
  return config::builtin_config(std::nullopt);
}

std::string apply_error(config::HostConfig cfg, const config::HamiSettings& h) {
  try {
    config::apply_hami_settings(cfg, h);
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(BuiltinConfig, HamisCommandLineWorksWithoutAFile) {
  const auto cfg = builtin();
  EXPECT_TRUE(cfg.source.empty());
  EXPECT_EQ(cfg.name(), "built-in defaults");
  EXPECT_EQ(cfg.listen.text(), "127.0.0.1:8443");
  EXPECT_TRUE(cfg.tls.self_signed);
  EXPECT_EQ(cfg.extender.listen.text(), "127.0.0.1:8444");
  EXPECT_FALSE(cfg.extender.shared);
  EXPECT_EQ(cfg.plugins.directory, "/usr/lib/hami-scheduler/plugins");
  ASSERT_EQ(cfg.plugins.devices.size(), 2u);
  EXPECT_EQ(cfg.plugins.devices[0].name, "nvidia");
  EXPECT_EQ(cfg.plugins.devices[0].library, "nvidia.so");
  EXPECT_EQ(cfg.plugins.devices[1].name, "amd");
  EXPECT_EQ(cfg.plugins.devices[1].config_json, "{}");
  ASSERT_TRUE(cfg.plugins.admission.has_value());
  EXPECT_EQ(cfg.plugins.admission->library, "vgpu.so");
  ASSERT_EQ(cfg.plugins.scheduling.size(), 1u);
  EXPECT_EQ(cfg.plugins.scheduling[0].library, "hami-policies.so");
  EXPECT_TRUE(cfg.plugins.device_config_file.empty());
  EXPECT_EQ(cfg.cluster.source, config::ClusterSource::kubernetes);
  EXPECT_TRUE(cfg.cluster.kubernetes.kubeconfig.empty());
  EXPECT_EQ(cfg.cluster.kubernetes.events, config::EventsApi::core_v1);
  EXPECT_EQ(cfg.cluster.leader_election.mode, config::LeaderMode::none);
  EXPECT_EQ(cfg.scheduler.allocate_at, config::AllocateAt::filter);
  EXPECT_EQ(cfg.scheduler.name, "hami-scheduler");
  EXPECT_FALSE(cfg.metrics.listen.has_value());
}

TEST(BuiltinConfig, KubeconfigFromTheEnvironmentComesFirst) {
  EXPECT_EQ(config::builtin_config("/etc/kube/admin.conf:/other").cluster.kubernetes.kubeconfig,
            "/etc/kube/admin.conf");
  EXPECT_TRUE(config::builtin_config(":/x").cluster.kubernetes.kubeconfig.empty());
}

TEST(BuiltinConfig, PluginNamesForHelpTexts) {
  EXPECT_EQ(config::builtin_device_plugin_names(), "nvidia, amd");
  EXPECT_EQ(config::builtin_plugin_names(), "nvidia, amd, vgpu and hami-policies");
}

TEST(HamiSettingsApply, TheChartsFlagsOnTheBuiltInDefaults) {
  auto cfg = builtin();
  config::HamiSettings h;
  h.http_bind = "0.0.0.0:443";
  h.scheduler_name = "hami-scheduler";
  h.metrics_bind_address = ":9395";
  h.node_policy = "binpack";
  h.gpu_policy = "spread";
  h.force_overwrite_default_scheduler = true;
  h.leader_elect = true;
  h.leader_elect_resource_name = "hami-scheduler";
  h.leader_elect_resource_namespace = "kube-system";
  h.klog_verbosity = 4;
  const auto notices = config::apply_hami_settings(cfg, h);
  EXPECT_EQ(cfg.listen.text(), "0.0.0.0:443");
  EXPECT_EQ(cfg.extender.listen.text(), "127.0.0.1:443");
  EXPECT_TRUE(cfg.extender.shared);
  ASSERT_TRUE(cfg.metrics.listen.has_value());
  EXPECT_EQ(cfg.metrics.listen->text(), ":9395");
  EXPECT_EQ(cfg.cluster.leader_election.mode, config::LeaderMode::follow);
  EXPECT_EQ(cfg.cluster.leader_election.lease_name, "hami-scheduler");
  EXPECT_EQ(cfg.cluster.leader_election.lease_namespace, "kube-system");
  EXPECT_EQ(cfg.plugins.admission->config_json, "{\"forceOverwriteDefaultScheduler\":true}");
  EXPECT_EQ(cfg.log.level, log::Level::info);
  // No certificate files: HTTPS with a self-signed certificate, noticed.
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_EQ(notices[0].flag, "--http_bind");
  EXPECT_FALSE(notices[0].ignored);
  EXPECT_EQ(notices[0].reason,
            "without --cert_file and --key_file HAMi serves plain HTTP; this host serves HTTPS "
            "only, here with a self-signed certificate (kube-scheduler's extender urlPrefix must "
            "be https://, as HAMi's chart renders it with the admission webhook enabled)");
}

TEST(HamiSettingsApply, HttpBindPlacesTheExtenderVerbsOnLoopback) {
  config::HamiSettings h;
  // Go's ":443" is every address.
  h.http_bind = ":443";
  auto any = builtin();
  config::apply_hami_settings(any, h);
  EXPECT_EQ(any.listen.text(), "0.0.0.0:443");
  EXPECT_EQ(any.extender.listen.text(), "127.0.0.1:443");
  EXPECT_TRUE(any.extender.shared);
  // HAMi's own default, loopback: one socket serves both.
  h.http_bind = "127.0.0.1:8080";
  auto lo = builtin();
  config::apply_hami_settings(lo, h);
  EXPECT_EQ(lo.listen.text(), "127.0.0.1:8080");
  EXPECT_EQ(lo.extender.listen.text(), "127.0.0.1:8080");
  EXPECT_TRUE(lo.extender.shared);
  // One address of the machine: the extender listener stays on loopback,
  // where kube-scheduler must be pointed.
  h.http_bind = "10.0.0.5:443";
  auto one = builtin();
  const auto notices = config::apply_hami_settings(one, h);
  EXPECT_EQ(one.listen.text(), "10.0.0.5:443");
  EXPECT_EQ(one.extender.listen.text(), "127.0.0.1:8444");
  EXPECT_FALSE(one.extender.shared);
  ASSERT_EQ(notices.size(), 2u);
  EXPECT_EQ(notices[0].reason,
            "HAMi serves the extender verbs on 10.0.0.5:443 too; here they stay on the extender "
            "listener 127.0.0.1:8444 (loopback only): point kube-scheduler's extender urlPrefix "
            "at https://127.0.0.1:8444");
  EXPECT_EQ(apply_error(builtin(),
                        [] {
                          config::HamiSettings bad;
                          bad.http_bind = "443";
                          return bad;
                        }()),
            "--http_bind: expected ADDR:PORT (e.g. 0.0.0.0:443 or :443), got \"443\"");
}

// HAMi's main branch serves the extender verbs on --extender-bind.
TEST(HamiSettingsApply, ExtenderBindIsTheExtenderListener) {
  config::HamiSettings h;
  h.http_bind = "0.0.0.0:443";
  h.extender_bind = "127.0.0.1:9444";
  auto own = builtin();
  const auto notices = config::apply_hami_settings(own, h);
  EXPECT_EQ(own.listen.text(), "0.0.0.0:443");
  EXPECT_EQ(own.extender.listen.text(), "127.0.0.1:9444");
  EXPECT_FALSE(own.extender.shared);
  // Only the plain-HTTP notice of --http_bind: the extender verbs are not
  // said to follow it.
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_EQ(notices[0].reason.rfind("without --cert_file and --key_file", 0), 0u);
  // Equal to --http_bind: one socket.
  h.http_bind = "127.0.0.1:9444";
  auto one = builtin();
  config::apply_hami_settings(one, h);
  EXPECT_TRUE(one.extender.shared);
  config::HamiSettings bad;
  bad.extender_bind = "9444";
  EXPECT_EQ(apply_error(builtin(), bad),
            "--extender-bind: expected ADDR:PORT (e.g. 127.0.0.1:9444), got \"9444\"");
}

TEST_F(HamiSettingsTest, HttpBindOverAFileWithItsOwnExtenderTls) {
  auto cfg = load(kMinimal + "extender:\n  tls: {selfSigned: true}\n");
  config::HamiSettings h;
  h.http_bind = "0.0.0.0:443";
  EXPECT_EQ(normalise(apply_error(cfg, h)),
            "--http_bind: the extender verbs share this socket, as HAMi serves them, so "
            "extender.tls of cfg.yaml cannot apply; remove it");
}

TEST_F(HamiSettingsTest, CertificateFiles) {
  write("tls.crt", "x");
  write("tls.key", "x");
  auto cfg = builtin();
  config::HamiSettings h;
  h.cert_file = (dir / "tls.crt").string();
  h.key_file = (dir / "tls.key").string();
  h.http_bind = "0.0.0.0:443";
  const auto notices = config::apply_hami_settings(cfg, h);
  EXPECT_FALSE(cfg.tls.self_signed);
  EXPECT_EQ(cfg.tls.cert_file, dir / "tls.crt");
  EXPECT_EQ(cfg.tls.key_file, dir / "tls.key");
  EXPECT_TRUE(notices.empty());
  config::HamiSettings one;
  one.cert_file = h.cert_file;
  EXPECT_EQ(apply_error(builtin(), one),
            "--cert_file: needs --key_file as well (this host always serves HTTPS)");
  one = {};
  one.key_file = h.key_file;
  EXPECT_EQ(apply_error(builtin(), one),
            "--key_file: needs --cert_file as well (this host always serves HTTPS)");
  one.cert_file = (dir / "missing.crt").string();
  EXPECT_EQ(normalise(apply_error(builtin(), one)),
            "--cert_file: cannot read \"DIR/missing.crt\": No such file or directory");
}

TEST(HamiSettingsApply, SchedulerAndPolicies) {
  auto cfg = builtin();
  config::HamiSettings h;
  h.scheduler_name = "gpu-scheduler";
  h.node_policy = "spread";
  h.gpu_policy = "binpack,numa";
  EXPECT_TRUE(config::apply_hami_settings(cfg, h).empty());
  EXPECT_EQ(cfg.scheduler.name, "gpu-scheduler");
  EXPECT_EQ(cfg.scheduler.node_policy, "spread");
  EXPECT_EQ(cfg.scheduler.gpu_policy, "binpack,numa");
  // HAMi's empty name (never change spec.schedulerName) is not offered.
  h = {};
  h.scheduler_name = "";
  const auto notices = config::apply_hami_settings(cfg, h);
  EXPECT_EQ(cfg.scheduler.name, "gpu-scheduler");
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_TRUE(notices[0].ignored);
  EXPECT_EQ(notices[0].reason,
            "empty: HAMi then leaves spec.schedulerName alone; this host always sets it, to "
            "scheduler.name \"gpu-scheduler\"");
}

TEST(HamiSettingsApply, NodeLockDurationsInWholeSeconds) {
  auto cfg = builtin();
  config::HamiSettings h;
  h.node_lock_timeout = 10min;
  h.node_lock_retry_timeout = 0s;
  EXPECT_TRUE(config::apply_hami_settings(cfg, h).empty());
  EXPECT_EQ(cfg.scheduler.node_lock.timeout_seconds, 600);
  EXPECT_EQ(cfg.scheduler.node_lock.pod_group_retry_timeout_seconds, 0);
  h.node_lock_timeout = 1500ms;
  h.node_lock_retry_timeout = 27500ms;
  const auto notices = config::apply_hami_settings(cfg, h);
  EXPECT_EQ(cfg.scheduler.node_lock.timeout_seconds, 2);
  EXPECT_EQ(cfg.scheduler.node_lock.pod_group_retry_timeout_seconds, 28);
  ASSERT_EQ(notices.size(), 2u);
  EXPECT_EQ(notices[0].flag, "--node-lock-timeout");
  EXPECT_EQ(notices[0].reason, "rounded up to 2s: the setting counts whole seconds");
  EXPECT_EQ(notices[1].flag, "--node-lock-retry-timeout");
  h = {};
  h.node_lock_timeout = 0s;
  EXPECT_EQ(apply_error(builtin(), h),
            "--node-lock-timeout: expected a duration of at least 1s, got 0ns");
  h = {};
  h.node_lock_retry_timeout = -1s;
  EXPECT_EQ(apply_error(builtin(), h),
            "--node-lock-retry-timeout: expected a duration of at least 0s, got -1000000000ns");
  h = {};
  h.node_lock_timeout = std::chrono::hours(1'000'000);
  EXPECT_EQ(apply_error(builtin(), h),
            "--node-lock-timeout: expected a duration of at most 2147483647s");
}

TEST(HamiSettingsApply, KubernetesClientWithClientGosZero) {
  auto cfg = builtin();
  config::HamiSettings h;
  h.kube_qps = 50;
  h.kube_burst = 100;
  h.kube_timeout_seconds = 12;
  EXPECT_TRUE(config::apply_hami_settings(cfg, h).empty());
  EXPECT_EQ(cfg.cluster.kubernetes.qps, 50);
  EXPECT_EQ(cfg.cluster.kubernetes.burst, 100);
  EXPECT_EQ(cfg.cluster.kubernetes.request_timeout_seconds, 12);
  // 0 is client-go's default (5, 10); a negative rate is no limit.
  h.kube_qps = 0;
  h.kube_burst = 0;
  h.kube_timeout_seconds = 0;
  const auto notices = config::apply_hami_settings(cfg, h);
  EXPECT_EQ(cfg.cluster.kubernetes.qps, 5);
  EXPECT_EQ(cfg.cluster.kubernetes.burst, 10);
  EXPECT_EQ(cfg.cluster.kubernetes.request_timeout_seconds, 12);
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_EQ(notices[0].flag, "--kube-timeout");
  EXPECT_EQ(notices[0].reason,
            "0 (no timeout) is not offered here: API requests keep a timeout of 12s "
            "(cluster.kubernetes.requestTimeoutSeconds)");
  h = {};
  h.kube_qps = -1;
  config::apply_hami_settings(cfg, h);
  EXPECT_EQ(cfg.cluster.kubernetes.qps, 0);
  h = {};
  h.kube_burst = -2;
  EXPECT_EQ(apply_error(builtin(), h),
            "--kube-burst: expected 0 (client-go's 10) or a positive number");
  h = {};
  h.kube_timeout_seconds = -2;
  EXPECT_EQ(apply_error(builtin(), h),
            "--kube-timeout: expected 0 or a positive number of seconds");
  h = {};
  h.kube_qps = 1e6;
  EXPECT_EQ(apply_error(builtin(), h), "--kube-qps: expected at most 100000");
}

TEST_F(HamiSettingsTest, LeaderElectionFollowsTheLease) {
  auto cfg = builtin();
  config::HamiSettings h;
  h.leader_elect = false;
  h.leader_elect_resource_name = "hami-scheduler";
  config::apply_hami_settings(cfg, h);
  EXPECT_EQ(cfg.cluster.leader_election.mode, config::LeaderMode::none);
  EXPECT_EQ(cfg.cluster.leader_election.lease_name, "hami-scheduler");
  EXPECT_EQ(cfg.cluster.leader_election.lease_namespace, "kube-system");
  // Over a file that runs its own election: follow wins.
  auto elect = load(kMinimal +
                    "cluster:\n  source: kubernetes\n  leaderElection: {mode: elect, leaseName: "
                    "hami}\n");
  h = {};
  h.leader_elect = true;
  config::apply_hami_settings(elect, h);
  EXPECT_EQ(elect.cluster.leader_election.mode, config::LeaderMode::follow);
  // A file backend has no lease.
  EXPECT_EQ(normalise(apply_error(load(kMinimal), h)),
            "--leader-elect: needs cluster.source kubernetes (the Lease is read from the API "
            "server), but cfg.yaml sets cluster.source file");
  h = {};
  h.leader_elect_resource_namespace = "";
  EXPECT_EQ(apply_error(builtin(), h),
            "--leader-elect-resource-namespace: expected the Lease's namespace, got \"\"");
}

TEST_F(HamiSettingsTest, DeviceConfigFileFeedsTheDevicePlugins) {
  write("device-config.yaml",
        "nvidia:\n  resourceCountName: nvidia.com/gpu\n  defaultGPUNum: 1\n"
        "vnpus:\n  - chipName: 910B\n");
  auto cfg = builtin();
  config::HamiSettings h;
  h.device_config_file = (dir / "device-config.yaml").string();
  config::apply_hami_settings(cfg, h);
  EXPECT_EQ(cfg.plugins.device_config_file, dir / "device-config.yaml");
  EXPECT_EQ(cfg.plugins.devices[0].config_json,
            "{\"resourceCountName\":\"nvidia.com/gpu\",\"defaultGPUNum\":1}");
  EXPECT_EQ(cfg.plugins.devices[0].config_source,
            config::PluginEntry::ConfigSource::device_config_file);
  // No amd section: the plugin's defaults.
  EXPECT_EQ(cfg.plugins.devices[1].config_json, "{}");
  // Over a file's device config, the flag's file wins; inline configs stay.
  write("other.yaml", "amd:\n  resourceCountName: amd.com/gpu\n");
  auto file = load(kMinimal +
                   "plugins:\n  directory: /p\n  deviceConfigFile: device-config.yaml\n"
                   "  devices:\n    - {name: nvidia, library: nvidia.so}\n"
                   "    - {name: amd, library: amd.so}\n"
                   "    - {name: x, library: x.so, config: {a: 1}}\n");
  EXPECT_NE(file.plugins.devices[0].config_json, "{}");
  h.device_config_file = (dir / "other.yaml").string();
  config::apply_hami_settings(file, h);
  EXPECT_EQ(file.plugins.devices[0].config_json, "{}");
  EXPECT_EQ(file.plugins.devices[0].config_source, config::PluginEntry::ConfigSource::none);
  EXPECT_EQ(file.plugins.devices[1].config_json, "{\"resourceCountName\":\"amd.com/gpu\"}");
  EXPECT_EQ(file.plugins.devices[2].config_json, "{\"a\":1}");
  h.device_config_file = (dir / "missing.yaml").string();
  EXPECT_EQ(normalise(apply_error(builtin(), h)),
            "--device-config-file: cannot read \"DIR/missing.yaml\": No such file or directory");
}

TEST_F(HamiSettingsTest, ForceOverwriteDefaultSchedulerIsTheAdmissionPluginsKey) {
  auto cfg = load(kMinimal +
                  "plugins:\n  directory: /p\n  admission:\n    name: vgpu\n    library: vgpu.so\n"
                  "    config: {privileged: deny, forceOverwriteDefaultScheduler: true}\n");
  config::HamiSettings h;
  h.force_overwrite_default_scheduler = false;
  EXPECT_TRUE(config::apply_hami_settings(cfg, h).empty());
  EXPECT_EQ(cfg.plugins.admission->config_json,
            "{\"privileged\":\"deny\",\"forceOverwriteDefaultScheduler\":false}");
  // Without an admission plugin there is nothing to tell.
  auto none = load(kMinimal);
  const auto notices = config::apply_hami_settings(none, h);
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_EQ(normalise(notices[0].reason), "no admission plugin is configured in cfg.yaml");
}

TEST(HamiSettingsApply, MetricsAndVerbosity) {
  auto cfg = builtin();
  config::HamiSettings h;
  h.metrics_bind_address = "127.0.0.1:9395";
  h.legacy_metrics = true;
  h.klog_verbosity = 5;
  config::apply_hami_settings(cfg, h);
  EXPECT_EQ(cfg.metrics.listen->text(), "127.0.0.1:9395");
  EXPECT_TRUE(cfg.metrics.legacy);
  EXPECT_EQ(cfg.log.level, log::Level::debug);
  h = {};
  h.metrics_bind_address = "";
  h.klog_verbosity = 2;
  config::apply_hami_settings(cfg, h);
  EXPECT_FALSE(cfg.metrics.listen.has_value());
  EXPECT_EQ(cfg.log.level, log::Level::info);
  h.metrics_bind_address = "9395";
  EXPECT_EQ(apply_error(builtin(), h),
            "--metrics-bind-address: expected ADDR:PORT or :PORT (e.g. :9395), got \"9395\"");
}

TEST_F(HamiSettingsTest, OwnListenOptionWinsOverHttpBind) {
  auto cfg = builtin();
  config::HamiSettings h;
  h.http_bind = "0.0.0.0:443";
  config::apply_hami_settings(cfg, h);
  config::Overrides o;
  o.listen = "0.0.0.0:9443";
  config::apply_overrides(cfg, o);
  EXPECT_EQ(cfg.listen.text(), "0.0.0.0:9443");
  EXPECT_EQ(cfg.extender.listen.text(), "127.0.0.1:9443");
  EXPECT_TRUE(cfg.extender.shared);
}

}  // namespace
}  // namespace hami::test
