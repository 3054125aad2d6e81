// Reading HAMi's command line out of argv: every syntax form Go's flag
// packages accept, durations, booleans, klog's -v beside this host's -v,
// the flags without effect (notices, never errors), what is left for
// Poco, and the exact error of every value HAMi would refuse too.
#include "app/hami_flags.hpp"

#include <gtest/gtest.h>

namespace hami::test {
namespace {

using namespace std::chrono_literals;
using app::CommandLineError;
using app::translate_command_line;
using Args = std::vector<std::string>;

app::TranslatedCommandLine translate(Args args) {
  args.insert(args.begin(), "hami-scheduler");
  return translate_command_line(args);
}

std::string error_of(Args args) {
  try {
    translate(std::move(args));
  } catch (const CommandLineError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(HamiFlags, EveryValueSyntax) {
  for (const Args& form : {Args{"--http_bind=0.0.0.0:443"}, Args{"--http_bind", "0.0.0.0:443"},
                           Args{"-http_bind=0.0.0.0:443"}, Args{"-http_bind", "0.0.0.0:443"}}) {
    const auto t = translate(form);
    EXPECT_EQ(t.hami.http_bind, "0.0.0.0:443") << form.front();
    EXPECT_EQ(t.args, Args{"hami-scheduler"}) << form.front();
    EXPECT_TRUE(t.ignored.empty());
  }
}

TEST(HamiFlags, BooleanForms) {
  EXPECT_EQ(translate({"--leader-elect"}).hami.leader_elect, true);
  EXPECT_EQ(translate({"-leader-elect"}).hami.leader_elect, true);
  EXPECT_EQ(translate({"--leader-elect=true"}).hami.leader_elect, true);
  EXPECT_EQ(translate({"--leader-elect=false"}).hami.leader_elect, false);
  EXPECT_EQ(translate({"-leader-elect=0"}).hami.leader_elect, false);
  EXPECT_EQ(translate({"--legacy-metrics=T"}).hami.legacy_metrics, true);
  EXPECT_EQ(translate({"--force-overwrite-default-scheduler=FALSE"})
                .hami.force_overwrite_default_scheduler,
            false);
  // A boolean takes its value only after '=': the next word is not its value.
  const auto t = translate({"--leader-elect", "false"});
  EXPECT_EQ(t.hami.leader_elect, true);
  EXPECT_EQ(t.args, (Args{"hami-scheduler", "false"}));
}

TEST(HamiFlags, ValueOfTheNextArgumentEvenWithADash) {
  // As in Go: a flag that needs a value takes the next argument as it is.
  EXPECT_EQ(translate({"--scheduler-name", "-odd-"}).hami.scheduler_name, "-odd-");
  EXPECT_EQ(translate({"--scheduler-name="}).hami.scheduler_name, "");
  EXPECT_EQ(translate({"--http_bind==x"}).hami.http_bind, "=x");
}

TEST(HamiFlags, TheLastOfARepeatedFlagWins) {
  const auto t = translate({"--scheduler-name=a", "--scheduler-name", "b", "--debug", "--debug"});
  EXPECT_EQ(t.hami.scheduler_name, "b");
  ASSERT_EQ(t.ignored.size(), 1u);  // noticed once
}

TEST(HamiFlags, DurationsInGoSyntax) {
  const auto t = translate({"--node-lock-timeout=5m", "--node-lock-retry-timeout", "28s"});
  EXPECT_EQ(t.hami.node_lock_timeout, 5min);
  EXPECT_EQ(t.hami.node_lock_retry_timeout, 28s);
  EXPECT_EQ(translate({"-node-lock-timeout=1h30m"}).hami.node_lock_timeout, 90min);
  EXPECT_EQ(translate({"--node-lock-retry-timeout=0"}).hami.node_lock_retry_timeout, 0s);
  EXPECT_EQ(translate({"--node-lock-timeout=1.5s"}).hami.node_lock_timeout, 1500ms);
}

TEST(HamiFlags, EveryMappedFlag) {
  const auto t =
      translate({"--http_bind=0.0.0.0:443", "--cert_file=/tls/tls.crt", "--key_file=/tls/tls.key",
                 "--scheduler-name=hami-scheduler", "--node-scheduler-policy=spread",
                 "--gpu-scheduler-policy=binpack,numa", "--metrics-bind-address=:9395",
                 "--kube-qps=2.5", "--kube-burst=7", "--kube-timeout=15", "--node-lock-timeout=2m",
                 "--node-lock-retry-timeout=10s", "--force-overwrite-default-scheduler=false",
                 "--leader-elect=true", "--leader-elect-resource-name=hami-scheduler",
                 "--leader-elect-resource-namespace=hami-system", "--legacy-metrics",
                 "--device-config-file=/device-config.yaml", "-v=5"});
  const config::HamiSettings& h = t.hami;
  EXPECT_EQ(h.http_bind, "0.0.0.0:443");
  EXPECT_EQ(h.cert_file, "/tls/tls.crt");
  EXPECT_EQ(h.key_file, "/tls/tls.key");
  EXPECT_EQ(h.scheduler_name, "hami-scheduler");
  EXPECT_EQ(h.node_policy, "spread");
  EXPECT_EQ(h.gpu_policy, "binpack,numa");
  EXPECT_EQ(h.metrics_bind_address, ":9395");
  EXPECT_EQ(h.kube_qps, 2.5);
  EXPECT_EQ(h.kube_burst, 7);
  EXPECT_EQ(h.kube_timeout_seconds, 15);
  EXPECT_EQ(h.node_lock_timeout, 2min);
  EXPECT_EQ(h.node_lock_retry_timeout, 10s);
  EXPECT_EQ(h.force_overwrite_default_scheduler, false);
  EXPECT_EQ(h.leader_elect, true);
  EXPECT_EQ(h.leader_elect_resource_name, "hami-scheduler");
  EXPECT_EQ(h.leader_elect_resource_namespace, "hami-system");
  EXPECT_EQ(h.legacy_metrics, true);
  EXPECT_EQ(h.device_config_file, "/device-config.yaml");
  EXPECT_EQ(h.klog_verbosity, 5);
  EXPECT_TRUE(t.ignored.empty());
  EXPECT_EQ(t.args, Args{"hami-scheduler"});
}

TEST(HamiFlags, KlogVerbosityBesideThisHostsVerbose) {
  EXPECT_EQ(translate({"-v=4"}).hami.klog_verbosity, 4);
  EXPECT_EQ(translate({"--v=4"}).hami.klog_verbosity, 4);
  EXPECT_EQ(translate({"-v", "6"}).hami.klog_verbosity, 6);
  EXPECT_EQ(translate({"--v", "2"}).hami.klog_verbosity, 2);
  // -v alone is this host's --verbose, handed to Poco.
  const auto own = translate({"-v", "--check-config"});
  EXPECT_FALSE(own.hami.klog_verbosity.has_value());
  EXPECT_EQ(own.args, (Args{"hami-scheduler", "-v", "--check-config"}));
  EXPECT_EQ(translate({"-v"}).args, (Args{"hami-scheduler", "-v"}));
  EXPECT_EQ(error_of({"--v"}), "-v: needs a value (a klog level, e.g. -v=4)");
  EXPECT_EQ(error_of({"-v=loud"}), "-v: expected an integer, got \"loud\"");
  EXPECT_EQ(error_of({"-v=4294967296"}),
            "-v: expected a klog level (an int32), got \"4294967296\"");
}

TEST(HamiFlags, FlagsWithoutEffectAreNoticedWithTheirReason) {
  const auto t = translate({"--debug", "--profiling=true", "--node-label-selector=gpu=on,a=b",
                            "--enable-ascend=true", "--enable-iluvatar", "--logtostderr",
                            "-vmodule=x=2", "--log_dir", "/var/log", "--cambricon-mlu-name=m",
                            "--dcu-memory", "d", "--mthreads-cores=c", "--metax-vcount=v",
                            "--sgpu-topology-aware", "--kunlun-vmemory=k",
                            "--enflame-vgcu-percentage-resource-name=e", "--check-config"});
  std::vector<std::string> flags;
  for (const auto& n : t.ignored) {
    flags.push_back(n.flag);
    EXPECT_TRUE(n.ignored) << n.flag;
    EXPECT_FALSE(n.reason.empty()) << n.flag;
  }
  EXPECT_EQ(flags, (std::vector<std::string>{
                       "--debug", "--profiling", "--node-label-selector", "--enable-ascend",
                       "--enable-iluvatar", "--logtostderr", "--vmodule", "--log_dir",
                       "--cambricon-mlu-name", "--dcu-memory", "--mthreads-cores", "--metax-vcount",
                       "--sgpu-topology-aware", "--kunlun-vmemory",
                       "--enflame-vgcu-percentage-resource-name"}));
  // Values taken by ignored flags are not left for Poco.
  EXPECT_EQ(t.args, (Args{"hami-scheduler", "--check-config"}));
  EXPECT_EQ(t.ignored[0].reason,
            "HAMi sets a debug flag that no scheduler code reads (-v 5 or this host's -v logs at "
            "debug level)");
  EXPECT_EQ(t.ignored[2].reason,
            "not supported: every node with a vendor registration is scheduled onto (keep GPU "
            "pods off other nodes with node selectors or affinity)");
  EXPECT_EQ(t.ignored[3].reason,
            "no Ascend device plugin ships with this host (its device plugins: nvidia, amd)");
  // Ignored flags never refuse their value.
  EXPECT_EQ(error_of({"--profiling=maybe", "--enable-ascend=sometimes"}), "<no error>");
}

TEST(HamiFlags, ThisHostsOptionsAndUnknownOnesPassToPoco) {
  const auto t = translate({"--config", "/etc/c.yaml", "--listen=127.0.0.1:9", "-p", "/plugins",
                            "--bogus", "-config=/x.yaml", "-check-config", "extra"});
  EXPECT_EQ(t.args, (Args{"hami-scheduler", "--config", "/etc/c.yaml", "--listen=127.0.0.1:9", "-p",
                          "/plugins", "--bogus", "--config=/x.yaml", "--check-config", "extra"}));
  // After "--" nothing is read as a flag.
  EXPECT_EQ(translate({"--", "--http_bind=x"}).args,
            (Args{"hami-scheduler", "--", "--http_bind=x"}));
  EXPECT_FALSE(translate({"--", "--http_bind=x"}).hami.http_bind.has_value());
  // Three dashes, a bare dash, "--=x": not flags of HAMi's either.
  EXPECT_EQ(translate({"---http_bind=x", "-", "--=x"}).args,
            (Args{"hami-scheduler", "---http_bind=x", "-", "--=x"}));
}

TEST(HamiFlags, HamisVersionSubcommand) {
  EXPECT_EQ(translate({"version"}).args, (Args{"hami-scheduler", "--version"}));
  // Only as the first argument.
  EXPECT_EQ(translate({"--debug", "version"}).args, (Args{"hami-scheduler", "version"}));
}

TEST(HamiFlags, RefusedValuesNameTheFlag) {
  EXPECT_EQ(error_of({"--node-lock-timeout=5 minutes"}),
            "--node-lock-timeout: expected a Go duration (e.g. 5m, 28s, 1h30m), got \"5 minutes\"");
  EXPECT_EQ(error_of({"-node-lock-retry-timeout", "28"}),
            "--node-lock-retry-timeout: expected a Go duration (e.g. 5m, 28s, 1h30m), got \"28\"");
  EXPECT_EQ(error_of({"--node-scheduler-policy=random"}),
            "--node-scheduler-policy: expected binpack or spread, got \"random\"");
  EXPECT_EQ(error_of({"--node-scheduler-policy=numa"}),
            "--node-scheduler-policy: expected binpack or spread, got \"numa\"");
  EXPECT_EQ(error_of({"--gpu-scheduler-policy=fastest"}),
            "--gpu-scheduler-policy: expected binpack, spread, topology-aware, mutex or numa, or "
            "a comma list of them, got \"fastest\"");
  EXPECT_EQ(error_of({"--gpu-scheduler-policy=binpack,"}),
            "--gpu-scheduler-policy: expected binpack, spread, topology-aware, mutex or numa, or "
            "a comma list of them, got \"binpack,\"");
  EXPECT_EQ(error_of({"--gpu-scheduler-policy="}),
            "--gpu-scheduler-policy: expected binpack, spread, topology-aware, mutex or numa, or "
            "a comma list of them, got \"\"");
  EXPECT_EQ(error_of({"--leader-elect=yes"}),
            "--leader-elect: expected true or false, got \"yes\"");
  EXPECT_EQ(error_of({"--kube-burst=lots"}), "--kube-burst: expected an integer, got \"lots\"");
  EXPECT_EQ(error_of({"--kube-qps=fast"}), "--kube-qps: expected a number, got \"fast\"");
  EXPECT_EQ(error_of({"--kube-timeout=1.5"}), "--kube-timeout: expected an integer, got \"1.5\"");
  EXPECT_EQ(error_of({"--http_bind"}), "--http_bind: needs a value");
  EXPECT_EQ(error_of({"--node-lock-timeout"}), "--node-lock-timeout: needs a value");
  // Every comma word of HAMi's device policies is accepted.
  EXPECT_EQ(translate({"--gpu-scheduler-policy=topology-aware,mutex,numa,spread"}).hami.gpu_policy,
            "topology-aware,mutex,numa,spread");
}

// HAMi's main branch, cmd/scheduler/main.go at 5a3dc223d1baf96f014b22a366849e1f0b2c609d,
// its GlobalFlagSet (vendors, --debug, --device-config-file) and klog's
// InitFlags: every flag with a typical value ("" for a boolean).
struct MainFlag {
  const char* name;
  const char* value;
};
constexpr MainFlag kHamiMainFlags[] = {
    {"http_bind", "0.0.0.0:443"},
    {"extender-bind", "127.0.0.1:9444"},
    {"cert_file", "/tls/tls.crt"},
    {"key_file", "/tls/tls.key"},
    {"scheduler-name", "hami-scheduler"},
    {"node-scheduler-policy", "binpack"},
    {"gpu-scheduler-policy", "spread"},
    {"metrics-bind-address", ":9395"},
    {"node-label-selector", "gpu=on"},
    {"kube-qps", "5"},
    {"kube-burst", "10"},
    {"kube-timeout", "30"},
    {"profiling", ""},
    {"profiling-bind-address", "127.0.0.1:6060"},
    {"node-lock-timeout", "5m"},
    {"node-lock-retry-timeout", "28s"},
    {"force-overwrite-default-scheduler", ""},
    {"device-plugin-namespace", "kube-system"},
    {"device-plugin-service-account", "hami-device-plugin"},
    {"leader-elect", ""},
    {"leader-elect-resource-name", "hami-scheduler"},
    {"leader-elect-resource-namespace", "kube-system"},
    {"legacy-metrics", ""},
    {"enable-ascend", ""},
    {"cambricon-mlu-name", "cambricon.com/mlu"},
    {"cambricon-mlu-memory", "cambricon.com/mlu.smlu.vmemory"},
    {"cambricon-mlu-cores", "cambricon.com/mlu.smlu.vcore"},
    {"dcu-name", "hygon.com/dcunum"},
    {"dcu-memory", "hygon.com/dcumem"},
    {"dcu-cores", "hygon.com/dcucores"},
    {"enable-iluvatar", ""},
    {"mthreads-name", "mthreads.com/vgpu"},
    {"mthreads-memory", "mthreads.com/sgpu-memory"},
    {"mthreads-cores", "mthreads.com/sgpu-core"},
    {"enflame-gcu-resource-name", "enflame.com/gcu"},
    {"enflame-drs-gcu-resource-name", "enflame.com/drs-gcu"},
    {"enflame-gcu-memory-resource-name", "enflame.com/gcu-memory"},
    {"enflame-gcu-core-resource-name", "enflame.com/gcu-core"},
    {"enflame-vgcu-resource-name", "enflame.com/drs-gcu"},
    {"enflame-vgcu-legacy-resource-name", "enflame.com/vgcu"},
    {"enflame-vgcu-percentage-resource-name", "enflame.com/vgcu-percentage"},
    {"metax-name", "metax-tech.com/gpu"},
    {"metax-vcount", "metax-tech.com/sgpu"},
    {"metax-vcore", "metax-tech.com/vcore"},
    {"metax-vmemory", "metax-tech.com/vmemory"},
    {"sgpu-topology-aware", ""},
    {"kunlun-name", "kunlunxin.com/xpu"},
    {"kunlun-vcount", "kunlunxin.com/vxpu"},
    {"kunlun-vmemory", "kunlunxin.com/vxpu-memory"},
    {"debug", ""},
    {"device-config-file", "/device-config.yaml"},
    {"log_dir", "/var/log"},
    {"log_file", "/var/log/s.log"},
    {"log_file_max_size", "1800"},
    {"logtostderr", ""},
    {"alsologtostderr", ""},
    {"v", "4"},
    {"add_dir_header", ""},
    {"skip_headers", ""},
    {"skip_log_headers", ""},
    {"one_output", ""},
    {"stderrthreshold", "2"},
    {"vmodule", "x=2"},
    {"log_backtrace_at", "x.go:1"},
    {"legacy_stderr_threshold_behavior", ""},
};

TEST(HamiFlags, EveryFlagOfHamisMainBranchParses) {
  for (const MainFlag& f : kHamiMainFlags) {
    const std::string flag = std::string("--") + f.name;
    std::vector<Args> forms;
    if (*f.value == '\0') {
      forms = {{flag}, {flag + "=true"}, {flag + "=false"}};
    } else {
      // Go's flag and pflag take both forms for a flag with a value.
      forms = {{flag + "=" + f.value}, {flag, f.value}};
    }
    for (const Args& form : forms) {
      app::TranslatedCommandLine t;
      ASSERT_NO_THROW(t = translate(form)) << form.front();
      // Nothing is left for Poco, which would stop at an unknown option.
      EXPECT_EQ(t.args, Args{"hami-scheduler"}) << form.front();
    }
  }
}

TEST(HamiFlags, DevicePluginNamespaceOfHamisCurrentChart) {
  const auto t = translate({"--device-plugin-namespace=kube-system"});
  EXPECT_EQ(t.args, Args{"hami-scheduler"});
  ASSERT_EQ(t.ignored.size(), 1u);
  EXPECT_EQ(t.ignored[0].flag, "--device-plugin-namespace");
  EXPECT_TRUE(t.ignored[0].ignored);
  EXPECT_EQ(t.ignored[0].reason,
            "HAMi accepts /refit only with a token of this ServiceAccount (a TokenReview); this "
            "host reviews no tokens: to limit who calls /refit, require client certificates on "
            "the webhook listener (tls.clientCAFile, docs/refit.md)");
  // The same in the other form, and beside its companion flag.
  const auto both = translate({"--device-plugin-namespace", "kube-system",
                               "--device-plugin-service-account", "hami-device-plugin"});
  EXPECT_EQ(both.args, Args{"hami-scheduler"});
  ASSERT_EQ(both.ignored.size(), 2u);
  EXPECT_EQ(both.ignored[1].flag, "--device-plugin-service-account");
  EXPECT_EQ(both.ignored[1].reason, t.ignored[0].reason);
}

TEST(HamiFlags, ExtenderBindAndProfilingBindAddress) {
  const auto t =
      translate({"--extender-bind", "127.0.0.1:9444", "--profiling-bind-address=127.0.0.1:6060"});
  EXPECT_EQ(t.hami.extender_bind, "127.0.0.1:9444");
  ASSERT_EQ(t.ignored.size(), 1u);
  EXPECT_EQ(t.ignored[0].flag, "--profiling-bind-address");
  EXPECT_EQ(t.ignored[0].reason, "Go's pprof does not exist here: no profiling listener is opened");
}

TEST(HamiFlags, HelpListsMappedAndIgnoredFlags) {
  const std::string help = app::hami_flags_help();
  EXPECT_NE(help.find("\n\nMapped onto config keys:\n  --http_bind\n  --extender-bind\n  "
                      "--cert_file\n"),
            std::string::npos)
      << help;
  EXPECT_NE(help.find("\n  --device-config-file\n  -v\n\nAccepted with a warning, without "
                      "effect:\n  --node-label-selector\n  --profiling\n  "
                      "--profiling-bind-address\n  --device-plugin-namespace\n  "
                      "--device-plugin-service-account\n  --debug\n"),
            std::string::npos)
      << help;
  EXPECT_NE(help.find("\n  --kunlun-vmemory\n\nFlag by flag: docs/migrating-from-hami.md.\n"),
            std::string::npos)
      << help;
  EXPECT_EQ(app::hami_flags_summary(),
            "HAMi's scheduler flags are accepted too, in Go's syntax; --help-hami lists them.");
}

}  // namespace
}  // namespace hami::test
