// What a valid configuration turns into: defaults, resolved paths, plugin
// config JSON, overrides, and the shipped config files.
#include "config/listen_address.hpp"
#include "config_fixture.hpp"

namespace hami::test {
namespace {

using ConfigValues = ConfigTest;

TEST_F(ConfigValues, Defaults) {
  const auto cfg = load(kMinimal);
  EXPECT_EQ(cfg.listen.text(), "127.0.0.1:8443");
  EXPECT_TRUE(cfg.tls.self_signed);
  EXPECT_TRUE(cfg.tls.session_resumption);
  EXPECT_EQ(cfg.server.read_timeout_seconds, 10);
  EXPECT_EQ(cfg.server.keep_alive_timeout_seconds, 15);
  EXPECT_EQ(cfg.server.max_threads, 16);
  EXPECT_EQ(cfg.server.max_queued, 256);
  EXPECT_EQ(cfg.server.shutdown_grace_seconds, 10);
  EXPECT_EQ(cfg.server.webhook_body_limit, 3145728u);
  EXPECT_EQ(cfg.server.extender_body_limit, 67108864u);
  EXPECT_EQ(cfg.server.extender_node_cache_bytes, 67108864u);
  EXPECT_EQ(cfg.plugins.count(), 0u);
  EXPECT_EQ(cfg.scheduler.name, "hami-scheduler");
  // Not set: the scheduling plugins' defaults apply.
  EXPECT_EQ(cfg.scheduler.node_policy, "");
  EXPECT_EQ(cfg.scheduler.gpu_policy, "");
  EXPECT_EQ(cfg.scheduler.allocate_at, config::AllocateAt::bind);
  EXPECT_EQ(cfg.cluster.source, config::ClusterSource::file);
  EXPECT_EQ(cfg.log.level, log::Level::info);
  EXPECT_EQ(cfg.log.format, log::Format::text);
}

TEST_F(ConfigValues, EveryKeyIsRead) {
  write("c.pem", "x");
  write("k.pem", "x");
  write("ca.pem", "x");
  write("cluster.yaml", "nodes: []\n");
  const auto cfg = load(R"(
listen: "[::1]:9443"
tls:
  certFile: c.pem
  keyFile: sub/../k.pem
  clientCAFile: ./ca.pem
  selfSigned: false
  sessionResumption: false
server:
  readTimeoutSeconds: 3
  keepAliveTimeoutSeconds: 4
  maxThreads: 5
  maxQueued: 6
  shutdownGraceSeconds: 7
  webhookBodyLimit: 8
  extenderBodyLimit: 9
  extenderNodeCacheBytes: 0
plugins:
  directory: ../plugins
  allowWritable: true
  admission: {name: vgpu, library: vgpu.so, config: {privileged: deny}}
  scheduling:
    - name: hami-policies
      library: hami-policies.so
scheduler:
  name: my-scheduler
  nodePolicy: spread
  gpuPolicy: binpack,numa
  allocateAt: filter
cluster:
  source: file
  file: cluster.yaml
log:
  level: warn
  format: json
)");
  EXPECT_EQ(cfg.listen.host, "::1");
  EXPECT_EQ(cfg.listen.port, 9443);
  EXPECT_EQ(cfg.listen.text(), "[::1]:9443");
  EXPECT_EQ(cfg.tls.cert_file, dir / "c.pem");
  EXPECT_EQ(cfg.tls.key_file, dir / "k.pem");
  EXPECT_EQ(cfg.tls.client_ca_file, dir / "ca.pem");
  EXPECT_FALSE(cfg.tls.self_signed);
  EXPECT_FALSE(cfg.tls.session_resumption);
  EXPECT_EQ(cfg.server.read_timeout_seconds, 3);
  EXPECT_EQ(cfg.server.keep_alive_timeout_seconds, 4);
  EXPECT_EQ(cfg.server.max_threads, 5);
  EXPECT_EQ(cfg.server.max_queued, 6);
  EXPECT_EQ(cfg.server.shutdown_grace_seconds, 7);
  EXPECT_EQ(cfg.server.webhook_body_limit, 8u);
  EXPECT_EQ(cfg.server.extender_body_limit, 9u);
  EXPECT_EQ(cfg.server.extender_node_cache_bytes, 0u);
  EXPECT_EQ(cfg.plugins.directory, dir.parent_path() / "plugins");
  EXPECT_TRUE(cfg.plugins.allow_writable);
  ASSERT_TRUE(cfg.plugins.admission.has_value());
  EXPECT_EQ(cfg.plugins.admission->name, "vgpu");
  EXPECT_EQ(cfg.plugins.admission->library, "vgpu.so");
  EXPECT_EQ(cfg.plugins.admission->config_json, R"({"privileged":"deny"})");
  ASSERT_EQ(cfg.plugins.scheduling.size(), 1u);
  EXPECT_EQ(cfg.plugins.scheduling[0].config_json, "{}");
  EXPECT_EQ(cfg.plugins.scheduling[0].config_source, config::PluginEntry::ConfigSource::none);
  EXPECT_EQ(cfg.scheduler.name, "my-scheduler");
  EXPECT_EQ(cfg.scheduler.node_policy, "spread");
  EXPECT_EQ(cfg.scheduler.gpu_policy, "binpack,numa");
  EXPECT_EQ(cfg.scheduler.allocate_at, config::AllocateAt::filter);
  EXPECT_EQ(cfg.cluster.file, dir / "cluster.yaml");
  EXPECT_EQ(cfg.log.level, log::Level::warn);
  EXPECT_EQ(cfg.log.format, log::Format::json);
}

TEST_F(ConfigValues, MetricsSection) {
  EXPECT_FALSE(load(kMinimal).metrics.listen.has_value());
  EXPECT_FALSE(load(kMinimal).metrics.legacy);
  EXPECT_FALSE(load(kMinimal + "metrics:\n  listen: \"\"\n").metrics.listen.has_value());
  const auto any = load(kMinimal + "metrics:\n  listen: \":9395\"\n  legacyMetrics: true\n");
  ASSERT_TRUE(any.metrics.listen.has_value());
  EXPECT_EQ(any.metrics.listen->host, "");
  EXPECT_EQ(any.metrics.listen->port, 9395);
  EXPECT_EQ(any.metrics.listen->text(), ":9395");
  EXPECT_TRUE(any.metrics.legacy);
  const auto local = load(kMinimal + "metrics:\n  listen: 127.0.0.1:0\n");
  EXPECT_EQ(local.metrics.listen->text(), "127.0.0.1:0");
}

TEST_F(ConfigValues, DeviceSectionFeedsPluginsWithoutInlineConfig) {
  write("device-config.yaml", R"(
nvidia:
  resourceCountName: nvidia.com/gpu
  defaultGPUNum: 1
  overwriteEnv: false
  memoryFactor: 1
amd:
  resourceCountName: amd.com/gpu
unknownVendor:
  anything: goes
)");
  const auto cfg = load(kMinimal + R"(
plugins:
  directory: plugins
  deviceConfigFile: device-config.yaml
  devices:
    - {name: nvidia, library: nvidia.so}
    - {name: amd, library: amd.so, config: {resourceCountName: "x.com/gpu"}}
    - {name: metax, library: metax.so}
)");
  ASSERT_EQ(cfg.plugins.devices.size(), 3u);
  EXPECT_EQ(cfg.plugins.device_config_file, dir / "device-config.yaml");
  EXPECT_EQ(
      cfg.plugins.devices[0].config_json,
      R"({"resourceCountName":"nvidia.com/gpu","defaultGPUNum":1,"overwriteEnv":false,"memoryFactor":1})");
  EXPECT_EQ(cfg.plugins.devices[0].config_source,
            config::PluginEntry::ConfigSource::device_config_file);
  // Inline config wins over the file's section.
  EXPECT_EQ(cfg.plugins.devices[1].config_json, R"({"resourceCountName":"x.com/gpu"})");
  EXPECT_EQ(cfg.plugins.devices[1].config_source, config::PluginEntry::ConfigSource::inline_config);
  // No section: an empty object.
  EXPECT_EQ(cfg.plugins.devices[2].config_json, "{}");
  EXPECT_EQ(cfg.plugins.devices[2].config_source, config::PluginEntry::ConfigSource::none);
}

TEST_F(ConfigValues, EmptyInlineConfigIsAnEmptyObject) {
  const auto cfg = load(kMinimal +
                        "plugins:\n  directory: p\n  devices:\n    - {name: a, library: a.so, "
                        "config: {}}\n");
  EXPECT_EQ(cfg.plugins.devices[0].config_json, "{}");
}

TEST_F(ConfigValues, OverridesWin) {
  auto cfg = load(kMinimal + "listen: 127.0.0.1:1\nplugins:\n  directory: p\n");
  config::Overrides o;
  o.listen = "[::1]:0";
  o.plugin_dir = "/opt/plugins/../hami";
  config::apply_overrides(cfg, o);
  EXPECT_EQ(cfg.listen.text(), "[::1]:0");
  EXPECT_EQ(cfg.plugins.directory, std::filesystem::path("/opt/hami"));
}

TEST(ListenAddress, Parses) {
  const auto v4 = config::parse_listen_address("0.0.0.0:443");
  ASSERT_TRUE(v4);
  EXPECT_EQ(v4->host, "0.0.0.0");
  EXPECT_EQ(v4->port, 443);
  const auto name = config::parse_listen_address("localhost:0");
  ASSERT_TRUE(name);
  EXPECT_EQ(name->text(), "localhost:0");
  const auto v6 = config::parse_listen_address("[fe80::1%eth0]:65535");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "fe80::1%eth0");
  EXPECT_EQ(v6->port, 65535);
  EXPECT_FALSE(config::parse_listen_address("[]:1"));
  EXPECT_FALSE(config::parse_listen_address("a:+1"));
  EXPECT_FALSE(config::parse_listen_address("a:0x10"));
}

// The shipped files must stay valid as the code evolves. The plugin folder
// is the one scripts/run-dev.sh builds (build/run), as the docs run it.
TEST(ShippedConfig, DevYamlParses) {
  const auto cfg = config::load_config(std::filesystem::path(HAMI_SOURCE_DIR) / "config/dev.yaml");
  EXPECT_EQ(cfg.listen.text(), "127.0.0.1:8443");
  EXPECT_TRUE(cfg.tls.self_signed);
  EXPECT_EQ(cfg.plugins.directory,
            (std::filesystem::path(HAMI_SOURCE_DIR) / "build/run/plugins").lexically_normal());
  EXPECT_GE(cfg.plugins.devices.size(), 1u);
}

TEST(ShippedConfig, ExampleYamlParses) {
  const auto cfg =
      config::load_config(std::filesystem::path(HAMI_SOURCE_DIR) / "config/example.yaml");
  EXPECT_EQ(cfg.listen.text(), "127.0.0.1:8443");
  EXPECT_GE(cfg.plugins.count(), 1u);
}

}  // namespace
}  // namespace hami::test
