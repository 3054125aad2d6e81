#include "app/hami_flags.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <set>
#include <string_view>

#include "app/go_flag_values.hpp"
#include "config/builtin_config.hpp"

namespace hami::app {
namespace {

// A HAMi flag as written: its canonical spelling and its value text.
struct FlagText {
  std::string_view flag;  // "--http_bind", "-v"
  std::string_view value;
};

[[noreturn]] void expected(const FlagText& f, std::string_view what) {
  throw CommandLineError(std::string(f.flag) + ": expected " + std::string(what) + ", got \"" +
                         std::string(f.value) + "\"");
}

std::string text(const FlagText& f) {
  return std::string(f.value);
}

bool boolean(const FlagText& f) {
  const auto v = parse_go_bool(f.value);
  if (!v)
    expected(f, "true or false");
  return *v;
}

std::chrono::nanoseconds duration(const FlagText& f) {
  const auto v = parse_go_duration(f.value);
  if (!v)
    expected(f, "a Go duration (e.g. 5m, 28s, 1h30m)");
  return *v;
}

int64_t integer(const FlagText& f) {
  const auto v = parse_go_int(f.value);
  if (!v)
    expected(f, "an integer");
  return *v;
}

double number(const FlagText& f) {
  const auto v = parse_go_float(f.value);
  if (!v)
    expected(f, "a number");
  return *v;
}

std::string node_policy(const FlagText& f) {
  if (f.value != "binpack" && f.value != "spread")
    expected(f, "binpack or spread");
  return text(f);
}

// HAMi's device policies, alone or as a comma list ("binpack,numa").
std::string gpu_policy(const FlagText& f) {
  constexpr std::array<std::string_view, 5> kNames{"binpack", "spread", "topology-aware", "mutex",
                                                   "numa"};
  std::string_view rest = f.value;
  while (true) {
    const size_t comma = rest.find(',');
    const std::string_view word = rest.substr(0, comma);
    if (std::find(kNames.begin(), kNames.end(), word) == kNames.end())
      expected(f, "binpack, spread, topology-aware, mutex or numa, or a comma list of them");
    if (comma == std::string_view::npos)
      break;
    rest.remove_prefix(comma + 1);
  }
  return text(f);
}

int64_t verbosity(const FlagText& f) {
  const int64_t v = integer(f);
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
    expected(f, "a klog level (an int32)");
  return v;
}

enum class Kind { boolean, value };
using Setter = void (*)(config::HamiSettings&, const FlagText&);

struct Spec {
  std::string_view name;
  Kind kind;
  Setter set;               // null: accepted without effect
  std::string_view reason;  // why, when `set` is null
  // The reason ends with the built-in configuration's device plugins.
  bool names_device_plugins = false;
};

constexpr std::string_view kKlogOutput =
    "klog output setting: this host writes one line per event to stderr (log.format text or "
    "json)";
constexpr std::string_view kRefitCallers =
    "HAMi accepts /refit only with a token of this ServiceAccount (a TokenReview); this host "
    "reviews no tokens: to limit who calls /refit, require client certificates on the webhook "
    "listener (tls.clientCAFile, docs/refit.md)";
constexpr std::string_view kNoAscend = "no Ascend device plugin ships with this host";
constexpr std::string_view kNoIluvatar = "no Iluvatar device plugin ships with this host";
constexpr std::string_view kNoCambricon =
    "Cambricon resource name: no Cambricon device plugin ships with this host";
constexpr std::string_view kNoHygon =
    "Hygon DCU resource name: no Hygon device plugin ships with this host";
constexpr std::string_view kNoMthreads =
    "Moore Threads resource name: no Moore Threads device plugin ships with this host";
constexpr std::string_view kNoEnflame =
    "Enflame resource name: no Enflame device plugin ships with this host";
constexpr std::string_view kNoMetax = "Metax setting: no Metax device plugin ships with this host";
constexpr std::string_view kNoKunlun =
    "Kunlunxin resource name: no Kunlunxin device plugin ships with this host";

// Every flag of HAMi's scheduler on its main branch, read from HAMi's source:
//  - cmd/scheduler/main.go at commit 5a3dc223d1baf96f014b22a366849e1f0b2c609d:
//    v2.10.0's flags plus --extender-bind, --profiling-bind-address,
//    --device-plugin-namespace and --device-plugin-service-account;
//  - pkg/scheduler/config/config.go GlobalFlagSet (the ParseConfig of
//    pkg/device/{ascend,cambricon,hygon,iluvatar,nvidia,mthreads,enflame,
//    metax,kunlun}, --debug, --device-config-file, klog's InitFlags),
//    the same on main as at v2.10.0 (4707fb02c91c545bc7343ce26dba4c32919f9a3e);
//  - pkg/util/util.go InitKlogFlags (klog v2 again).
constexpr Spec kFlags[] = {
    {"http_bind", Kind::value, [](auto& s, const auto& f) { s.http_bind = text(f); }, {}},
    {"extender-bind", Kind::value, [](auto& s, const auto& f) { s.extender_bind = text(f); }, {}},
    {"cert_file", Kind::value, [](auto& s, const auto& f) { s.cert_file = text(f); }, {}},
    {"key_file", Kind::value, [](auto& s, const auto& f) { s.key_file = text(f); }, {}},
    {"scheduler-name", Kind::value, [](auto& s, const auto& f) { s.scheduler_name = text(f); }, {}},
    {"node-scheduler-policy",
     Kind::value,
     [](auto& s, const auto& f) { s.node_policy = node_policy(f); },
     {}},
    {"gpu-scheduler-policy",
     Kind::value,
     [](auto& s, const auto& f) { s.gpu_policy = gpu_policy(f); },
     {}},
    {"metrics-bind-address",
     Kind::value,
     [](auto& s, const auto& f) { s.metrics_bind_address = text(f); },
     {}},
    {"node-label-selector", Kind::value, nullptr,
     "not supported: every node with a vendor registration is scheduled onto (keep GPU pods off "
     "other nodes with node selectors or affinity)"},
    {"kube-qps", Kind::value, [](auto& s, const auto& f) { s.kube_qps = number(f); }, {}},
    {"kube-burst", Kind::value, [](auto& s, const auto& f) { s.kube_burst = integer(f); }, {}},
    {"kube-timeout",
     Kind::value,
     [](auto& s, const auto& f) { s.kube_timeout_seconds = integer(f); },
     {}},
    {"profiling", Kind::boolean, nullptr,
     "Go's pprof does not exist here: /debug/pprof/* is not served"},
    {"profiling-bind-address", Kind::value, nullptr,
     "Go's pprof does not exist here: no profiling listener is opened"},
    {"node-lock-timeout",
     Kind::value,
     [](auto& s, const auto& f) { s.node_lock_timeout = duration(f); },
     {}},
    {"node-lock-retry-timeout",
     Kind::value,
     [](auto& s, const auto& f) { s.node_lock_retry_timeout = duration(f); },
     {}},
    {"force-overwrite-default-scheduler",
     Kind::boolean,
     [](auto& s, const auto& f) { s.force_overwrite_default_scheduler = boolean(f); },
     {}},
    {"device-plugin-namespace", Kind::value, nullptr, kRefitCallers},
    {"device-plugin-service-account", Kind::value, nullptr, kRefitCallers},
    {"leader-elect",
     Kind::boolean,
     [](auto& s, const auto& f) { s.leader_elect = boolean(f); },
     {}},
    {"leader-elect-resource-name",
     Kind::value,
     [](auto& s, const auto& f) { s.leader_elect_resource_name = text(f); },
     {}},
    {"leader-elect-resource-namespace",
     Kind::value,
     [](auto& s, const auto& f) { s.leader_elect_resource_namespace = text(f); },
     {}},
    {"legacy-metrics",
     Kind::boolean,
     [](auto& s, const auto& f) { s.legacy_metrics = boolean(f); },
     {}},
    {"device-config-file",
     Kind::value,
     [](auto& s, const auto& f) { s.device_config_file = text(f); },
     {}},
    {"debug", Kind::boolean, nullptr,
     "HAMi sets a debug flag that no scheduler code reads (-v 5 or this host's -v logs at debug "
     "level)"},
    // klog.
    {"v", Kind::value, [](auto& s, const auto& f) { s.klog_verbosity = verbosity(f); }, {}},
    {"vmodule", Kind::value, nullptr, kKlogOutput},
    {"log_dir", Kind::value, nullptr, kKlogOutput},
    {"log_file", Kind::value, nullptr, kKlogOutput},
    {"log_file_max_size", Kind::value, nullptr, kKlogOutput},
    {"logtostderr", Kind::boolean, nullptr, kKlogOutput},
    {"alsologtostderr", Kind::boolean, nullptr, kKlogOutput},
    {"add_dir_header", Kind::boolean, nullptr, kKlogOutput},
    {"skip_headers", Kind::boolean, nullptr, kKlogOutput},
    {"skip_log_headers", Kind::boolean, nullptr, kKlogOutput},
    {"one_output", Kind::boolean, nullptr, kKlogOutput},
    {"stderrthreshold", Kind::value, nullptr, kKlogOutput},
    {"log_backtrace_at", Kind::value, nullptr, kKlogOutput},
    {"legacy_stderr_threshold_behavior", Kind::boolean, nullptr, kKlogOutput},
    // Vendors (pkg/device/*/ParseConfig).
    {"enable-ascend", Kind::boolean, nullptr, kNoAscend, true},
    {"enable-iluvatar", Kind::boolean, nullptr, kNoIluvatar, true},
    {"cambricon-mlu-name", Kind::value, nullptr, kNoCambricon},
    {"cambricon-mlu-memory", Kind::value, nullptr, kNoCambricon},
    {"cambricon-mlu-cores", Kind::value, nullptr, kNoCambricon},
    {"dcu-name", Kind::value, nullptr, kNoHygon},
    {"dcu-memory", Kind::value, nullptr, kNoHygon},
    {"dcu-cores", Kind::value, nullptr, kNoHygon},
    {"mthreads-name", Kind::value, nullptr, kNoMthreads},
    {"mthreads-memory", Kind::value, nullptr, kNoMthreads},
    {"mthreads-cores", Kind::value, nullptr, kNoMthreads},
    {"enflame-gcu-resource-name", Kind::value, nullptr, kNoEnflame},
    {"enflame-drs-gcu-resource-name", Kind::value, nullptr, kNoEnflame},
    {"enflame-gcu-memory-resource-name", Kind::value, nullptr, kNoEnflame},
    {"enflame-gcu-core-resource-name", Kind::value, nullptr, kNoEnflame},
    {"enflame-vgcu-resource-name", Kind::value, nullptr, kNoEnflame},
    {"enflame-vgcu-legacy-resource-name", Kind::value, nullptr, kNoEnflame},
    {"enflame-vgcu-percentage-resource-name", Kind::value, nullptr, kNoEnflame},
    {"metax-name", Kind::value, nullptr, kNoMetax},
    {"metax-vcount", Kind::value, nullptr, kNoMetax},
    {"metax-vcore", Kind::value, nullptr, kNoMetax},
    {"metax-vmemory", Kind::value, nullptr, kNoMetax},
    {"sgpu-topology-aware", Kind::boolean, nullptr, kNoMetax},
    {"kunlun-name", Kind::value, nullptr, kNoKunlun},
    {"kunlun-vcount", Kind::value, nullptr, kNoKunlun},
    {"kunlun-vmemory", Kind::value, nullptr, kNoKunlun},
};

const Spec* find_flag(std::string_view name) {
  for (const Spec& spec : kFlags) {
    if (spec.name == name)
      return &spec;
  }
  return nullptr;
}

// This host's long options (SchedulerApp::defineOptions).
bool own_long_option(std::string_view name) {
  constexpr std::array<std::string_view, 10> kOwn{
      "config",       "listen",  "plugin-dir", "cluster", "check-config",
      "list-plugins", "verbose", "version",    "help",    "help-hami"};
  return std::find(kOwn.begin(), kOwn.end(), name) != kOwn.end();
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string canonical(std::string_view name) {
  return (name == "v" ? "-" : "--") + std::string(name);
}

std::string reason(const Spec& spec) {
  std::string out(spec.reason);
  if (spec.names_device_plugins)
    out += " (its device plugins: " + config::builtin_device_plugin_names() + ")";
  return out;
}

}  // namespace

TranslatedCommandLine translate_command_line(const std::vector<std::string>& argv) {
  TranslatedCommandLine out;
  if (argv.empty())
    return out;
  out.args.push_back(argv.front());
  std::set<std::string, std::less<>> noticed;
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (arg == "--") {
      out.args.insert(out.args.end(), argv.begin() + static_cast<std::ptrdiff_t>(i), argv.end());
      break;
    }
    if (arg.size() < 2 || arg.front() != '-') {
      // HAMi's `scheduler version` subcommand.
      out.args.push_back(i == 1 && arg == "version" ? "--version" : arg);
      continue;
    }
    const size_t dashes = arg[1] == '-' ? 2 : 1;
    const std::string_view body = std::string_view(arg).substr(dashes);
    if (body.empty() || body.front() == '-' || body.front() == '=') {
      out.args.push_back(arg);
      continue;
    }
    const size_t eq = body.find('=');
    const std::string_view name = body.substr(0, eq);
    const Spec* spec = find_flag(name);
    if (spec == nullptr) {
      out.args.push_back(dashes == 1 && name.size() > 1 && own_long_option(name) ? "-" + arg : arg);
      continue;
    }
    const std::string flag = canonical(name);
    std::string value;
    if (eq != std::string_view::npos) {
      value = std::string(body.substr(eq + 1));
    } else if (spec->kind == Kind::boolean) {
      value = "true";
    } else if (name == "v" && !(i + 1 < argv.size() && all_digits(argv[i + 1]))) {
      if (dashes == 2)
        throw CommandLineError("-v: needs a value (a klog level, e.g. -v=4)");
      out.args.push_back(arg);  // this host's -v
      continue;
    } else if (i + 1 < argv.size()) {
      value = argv[++i];
    } else {
      throw CommandLineError(flag + ": needs a value");
    }
    if (spec->set != nullptr) {
      spec->set(out.hami, FlagText{flag, value});
    } else if (noticed.insert(flag).second) {
      out.ignored.push_back(config::FlagNotice{flag, reason(*spec), true});
    }
  }
  return out;
}

std::string hami_flags_summary() {
  return "HAMi's scheduler flags are accepted too, in Go's syntax; --help-hami lists them.";
}

std::string hami_flags_help() {
  std::string mapped;
  std::string ignored;
  for (const Spec& spec : kFlags) {
    std::string& list = spec.set != nullptr ? mapped : ignored;
    list += "\n  " + canonical(spec.name);
  }
  return "HAMi's scheduler flags (its main branch, v2.10 included) are accepted too, in Go's "
         "syntax (-flag=value, --flag value, --bool or --bool=false, durations such as 5m); they "
         "win over the config file, this host's own options win over them.\n\n"
         "Mapped onto config keys:" +
         mapped + "\n\nAccepted with a warning, without effect:" + ignored +
         "\n\nFlag by flag: docs/migrating-from-hami.md.\n";
}

}  // namespace hami::app
