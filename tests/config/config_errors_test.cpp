// Every kind of configuration error, with its exact message.
#include "config_fixture.hpp"

namespace hami::test {
namespace {

using ConfigErrors = ConfigTest;

TEST_F(ConfigErrors, MissingFile) {
  try {
    config::load_config(dir / "absent.yaml");
    FAIL() << "expected ConfigError";
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(normalise(e.what()),
              "DIR/absent.yaml: cannot read config file: No such file or directory");
  }
}

TEST_F(ConfigErrors, YamlSyntaxNamesLineAndColumn) {
  const std::string msg = error_of("tls:\n  selfSigned: [true\n");
  EXPECT_EQ(msg.rfind("cfg.yaml: line 3, column 1: invalid YAML: ", 0), 0u) << msg;
}

TEST_F(ConfigErrors, TopLevelMustBeAMapping) {
  EXPECT_EQ(error_of("- a\n- b\n"), "cfg.yaml: expected a mapping at the top level, got a list");
}

TEST_F(ConfigErrors, UnknownTopLevelKey) {
  EXPECT_EQ(error_of(kMinimal + "listn: 127.0.0.1:1\n"),
            "cfg.yaml: listn: unknown key (expected one of: listen, tls, extender, server, "
            "plugins, scheduler, cluster, metrics, log)");
}

TEST_F(ConfigErrors, MalformedMetricsListenAddress) {
  EXPECT_EQ(error_of(kMinimal + "metrics:\n  listen: \"9395\"\n"),
            "cfg.yaml: metrics.listen: expected ADDR:PORT or :PORT (e.g. :9395), or empty, got "
            "\"9395\"");
  EXPECT_EQ(error_of(kMinimal + "metrics:\n  legacyMetrics: 1\n"),
            "cfg.yaml: metrics.legacyMetrics: expected true or false, got \"1\"");
}

TEST_F(ConfigErrors, UnknownNestedKey) {
  EXPECT_EQ(error_of(kMinimal + "server:\n  maxThread: 4\n"),
            "cfg.yaml: server.maxThread: unknown key (expected one of: readTimeoutSeconds, "
            "keepAliveTimeoutSeconds, maxThreads, maxQueued, shutdownGraceSeconds, "
            "webhookBodyLimit, extenderBodyLimit, extenderNodeCacheBytes)");
}

TEST_F(ConfigErrors, UnknownKeyInPluginEntry) {
  EXPECT_EQ(error_of(kMinimal +
                     "plugins:\n  directory: p\n  devices:\n    - name: nvidia\n      library: "
                     "nvidia.so\n      conf: {}\n"),
            "cfg.yaml: plugins.devices[0].conf: unknown key (expected one of: name, library, "
            "config)");
}

TEST_F(ConfigErrors, DuplicateKey) {
  EXPECT_EQ(error_of(kMinimal + "log:\n  level: info\n  level: debug\n"),
            "cfg.yaml: log.level: duplicate key");
}

TEST_F(ConfigErrors, NotAPositiveInteger) {
  EXPECT_EQ(error_of(kMinimal + "server:\n  maxThreads: abc\n"),
            "cfg.yaml: server.maxThreads: expected a positive integer, got \"abc\"");
  EXPECT_EQ(error_of(kMinimal + "server:\n  maxThreads: 0\n"),
            "cfg.yaml: server.maxThreads: expected a positive integer, got \"0\"");
  EXPECT_EQ(error_of(kMinimal + "server:\n  maxThreads: -3\n"),
            "cfg.yaml: server.maxThreads: expected a positive integer, got \"-3\"");
  EXPECT_EQ(error_of(kMinimal + "server:\n  maxThreads: 1.5\n"),
            "cfg.yaml: server.maxThreads: expected a positive integer, got \"1.5\"");
  // A quoted number is text, not a number.
  EXPECT_EQ(error_of(kMinimal + "server:\n  maxThreads: \"16\"\n"),
            "cfg.yaml: server.maxThreads: expected a positive integer, got \"16\"");
  EXPECT_EQ(error_of(kMinimal + "server:\n  maxThreads: [1]\n"),
            "cfg.yaml: server.maxThreads: expected a positive integer, got a list");
}

TEST_F(ConfigErrors, IntegerTooLarge) {
  EXPECT_EQ(error_of(kMinimal + "server:\n  readTimeoutSeconds: 99999999999\n"),
            "cfg.yaml: server.readTimeoutSeconds: expected a positive integer no larger than "
            "2147483647, got \"99999999999\"");
  EXPECT_EQ(error_of(kMinimal + "server:\n  webhookBodyLimit: 2147483648\n"),
            "cfg.yaml: server.webhookBodyLimit: expected an integer from 1 to 1073741824, got "
            "\"2147483648\"");
  EXPECT_EQ(
      error_of(kMinimal + "server:\n  extenderNodeCacheBytes: -1\n"),
      "cfg.yaml: server.extenderNodeCacheBytes: expected an integer from 0 to 1073741824, got "
      "\"-1\"");
}

TEST_F(ConfigErrors, GraceMayBeZeroButNotNegative) {
  EXPECT_EQ(error_of(kMinimal + "server:\n  shutdownGraceSeconds: -1\n"),
            "cfg.yaml: server.shutdownGraceSeconds: expected a non-negative integer, got \"-1\"");
  EXPECT_EQ(load(kMinimal + "server:\n  shutdownGraceSeconds: 0\n").server.shutdown_grace_seconds,
            0);
}

TEST_F(ConfigErrors, NotABoolean) {
  EXPECT_EQ(error_of("tls:\n  selfSigned: yes\n"),
            "cfg.yaml: tls.selfSigned: expected true or false, got \"yes\"");
}

TEST_F(ConfigErrors, NotOneOfTheChoices) {
  EXPECT_EQ(error_of(kMinimal + "log:\n  level: verbose\n"),
            "cfg.yaml: log.level: expected one of debug, info, warn, error, got \"verbose\"");
  EXPECT_EQ(error_of(kMinimal + "log:\n  format: xml\n"),
            "cfg.yaml: log.format: expected one of text, json, got \"xml\"");
  EXPECT_EQ(error_of(kMinimal + "scheduler:\n  allocateAt: score\n"),
            "cfg.yaml: scheduler.allocateAt: expected one of bind, filter, got \"score\"");
  EXPECT_EQ(error_of(kMinimal + "cluster:\n  source: etcd\n"),
            "cfg.yaml: cluster.source: expected one of file, kubernetes, got \"etcd\"");
}

TEST_F(ConfigErrors, NotAString) {
  EXPECT_EQ(error_of(kMinimal + "scheduler:\n  name: {a: 1}\n"),
            "cfg.yaml: scheduler.name: expected a string, got a mapping");
  EXPECT_EQ(error_of(kMinimal + "scheduler:\n  name: \"\"\n"),
            "cfg.yaml: scheduler.name: expected a non-empty string");
}

TEST_F(ConfigErrors, MalformedListenAddress) {
  for (const std::string bad : {"8443", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "::1:8443",
                                "[::1]8443", ":8443", "host name:1"}) {
    EXPECT_EQ(error_of(kMinimal + "listen: \"" + bad + "\"\n"),
              "cfg.yaml: listen: expected ADDR:PORT (e.g. 127.0.0.1:8443 or [::1]:8443), got \"" +
                  bad + "\"")
        << bad;
  }
}

TEST_F(ConfigErrors, SectionMustBeAMapping) {
  EXPECT_EQ(error_of(kMinimal + "server:\n  - 1\n"),
            "cfg.yaml: server: expected a mapping, got a list");
  EXPECT_EQ(error_of(kMinimal + "log: debug\n"),
            "cfg.yaml: log: expected a mapping, got \"debug\"");
}

TEST_F(ConfigErrors, PluginListMustBeAList) {
  EXPECT_EQ(error_of(kMinimal + "plugins:\n  directory: p\n  devices:\n    name: nvidia\n"),
            "cfg.yaml: plugins.devices: expected a list, got a mapping");
}

TEST_F(ConfigErrors, PluginEntryFields) {
  const std::string head = kMinimal + "plugins:\n  directory: p\n  devices:\n";
  EXPECT_EQ(error_of(head + "    - library: nvidia.so\n"),
            "cfg.yaml: plugins.devices[0].name: required");
  EXPECT_EQ(error_of(head + "    - name: nvidia\n"),
            "cfg.yaml: plugins.devices[0].library: required");
  EXPECT_EQ(error_of(head + "    - name: Nvidia GPU\n      library: n.so\n"),
            "cfg.yaml: plugins.devices[0].name: expected a name made of a-z, 0-9, '_' and '-', "
            "got \"Nvidia GPU\"");
  EXPECT_EQ(error_of(head + "    - name: nvidia\n      library: n.so\n      config: [1]\n"),
            "cfg.yaml: plugins.devices[0].config: expected a mapping, got a list");
  EXPECT_EQ(error_of(head + "    - nvidia.so\n"),
            "cfg.yaml: plugins.devices[0]: expected a mapping, got \"nvidia.so\"");
}

TEST_F(ConfigErrors, DuplicatePluginName) {
  EXPECT_EQ(
      error_of(kMinimal + "plugins:\n  directory: p\n  devices:\n    - {name: gpu, library: a.so}\n"
                          "  scheduling:\n    - {name: gpu, library: b.so}\n"),
      "cfg.yaml: plugins.scheduling[0].name: duplicate plugin name \"gpu\"");
}

TEST_F(ConfigErrors, PluginDirectoryRequiredWhenPluginsAreListed) {
  EXPECT_EQ(error_of(kMinimal + "plugins:\n  admission: {name: vgpu, library: vgpu.so}\n"),
            "cfg.yaml: plugins.directory: required when plugins are listed");
}

TEST_F(ConfigErrors, CertificateRequiredUnlessSelfSigned) {
  EXPECT_EQ(
      error_of("listen: 127.0.0.1:1\n"),
      "cfg.yaml: tls.certFile: required unless tls.selfSigned is true or tls.selfManaged is set");
  EXPECT_EQ(
      error_of("tls:\n  certFile: c.pem\n"),
      "cfg.yaml: tls.keyFile: required unless tls.selfSigned is true or tls.selfManaged is set");
}

TEST_F(ConfigErrors, SelfSignedExcludesFiles) {
  EXPECT_EQ(error_of("tls:\n  selfSigned: true\n  certFile: c.pem\n"),
            "cfg.yaml: tls.selfSigned: cannot be combined with tls.certFile or tls.keyFile");
}

TEST_F(ConfigErrors, UnreadableTlsFilesAreNamedWithTheirResolvedPath) {
  EXPECT_EQ(error_of("tls:\n  certFile: certs/c.pem\n  keyFile: certs/k.pem\n"),
            "cfg.yaml: tls.certFile: cannot read \"DIR/certs/c.pem\": No such file or directory");
  write("certs/c.pem", "x");
  write("certs/k.pem", "x");
  EXPECT_EQ(
      error_of("tls:\n  certFile: certs/c.pem\n  keyFile: certs/k.pem\n  clientCAFile: ca.pem\n"),
      "cfg.yaml: tls.clientCAFile: cannot read \"DIR/ca.pem\": No such file or directory");
}

TEST_F(ConfigErrors, MissingDeviceConfigFile) {
  EXPECT_EQ(error_of(kMinimal + "plugins:\n  directory: p\n  deviceConfigFile: dev.yaml\n"),
            "plugins.deviceConfigFile: cannot read \"DIR/dev.yaml\": No such file or directory");
}

TEST_F(ConfigErrors, DeviceConfigSectionMustBeAMapping) {
  write("dev.yaml", "nvidia:\n  - a\n");
  EXPECT_EQ(
      error_of(kMinimal + "plugins:\n  directory: p\n  deviceConfigFile: dev.yaml\n  devices:\n"
                          "    - {name: nvidia, library: nvidia.so}\n"),
      "DIR/dev.yaml: nvidia: expected a mapping, got a list");
}

TEST_F(ConfigErrors, DeviceConfigSyntaxError) {
  write("dev.yaml", "nvidia: {\n");
  const std::string msg =
      error_of(kMinimal + "plugins:\n  directory: p\n  deviceConfigFile: dev.yaml\n");
  EXPECT_EQ(msg.rfind("DIR/dev.yaml: line ", 0), 0u) << msg;
  EXPECT_NE(msg.find(": invalid YAML: "), std::string::npos) << msg;
}

TEST_F(ConfigErrors, CompareDeviceConfigMapIsNamespaceSlashName) {
  for (const char* bad :
       {"hami-scheduler-device", "/hami-scheduler-device", "kube-system/", "kube-system/a/b"}) {
    EXPECT_EQ(error_of(kMinimal + "plugins:\n  compareDeviceConfigMap: " + bad + "\n"),
              std::string("cfg.yaml: plugins.compareDeviceConfigMap: expected NAMESPACE/NAME (e.g. "
                          "kube-system/hami-scheduler-device), got \"") +
                  bad + "\"");
  }
  EXPECT_EQ(
      load(kMinimal + "plugins:\n  compareDeviceConfigMap: kube-system/hami-scheduler-device\n")
          .plugins.compare_device_config_map,
      "kube-system/hami-scheduler-device");
  EXPECT_EQ(load(kMinimal + "plugins:\n  compareDeviceConfigMap: \"\"\n")
                .plugins.compare_device_config_map,
            "");
}

TEST_F(ConfigErrors, MissingClusterFile) {
  EXPECT_EQ(error_of(kMinimal + "cluster:\n  source: file\n  file: demo.yaml\n"),
            "cfg.yaml: cluster.file: cannot read \"DIR/demo.yaml\": No such file or directory");
}

TEST_F(ConfigErrors, MalformedListenOverride) {
  auto cfg = load(kMinimal);
  config::Overrides o;
  o.listen = "localhost";
  try {
    config::apply_overrides(cfg, o);
    FAIL() << "expected ConfigError";
  } catch (const config::ConfigError& e) {
    EXPECT_STREQ(
        e.what(),
        "--listen: expected ADDR:PORT (e.g. 127.0.0.1:8443 or [::1]:8443), got \"localhost\"");
  }
}

}  // namespace
}  // namespace hami::test
