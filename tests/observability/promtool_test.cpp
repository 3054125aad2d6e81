// The full /metrics output checked by Prometheus' own promtool (`promtool
// check metrics`: parse plus lint). Skipped when promtool is not installed
// (Debian package `prometheus`).
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "exposition_parser.hpp"
#include "observability/build_info.hpp"
#include "observability/hami_collector.hpp"
#include "observability/plugin_metrics.hpp"
#include "observability/request_metrics.hpp"
#include "observability/scheduler_metrics.hpp"

namespace {

using namespace hami::observability;

struct CommandResult {
  int status = -1;
  std::string output;
};

// Runs `command` through the shell, capturing stdout and stderr.
CommandResult run(const std::string& command) {
  CommandResult r;
  struct Closer {
    void operator()(FILE* f) const {
      if (f != nullptr)
        pclose(f);
    }
  };
  FILE* raw = popen((command + " 2>&1").c_str(), "r");
  if (raw == nullptr)
    return r;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), raw)) > 0)
    r.output.append(buf.data(), n);
  const int status = pclose(raw);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

bool have_promtool() {
  return run("command -v promtool").status == 0;
}

class FixedSource final : public ClusterUsageSource {
 public:
  ClusterUsage usage() const override {
    ClusterUsage u;
    DeviceUsage d;
    d.uuid = "GPU-\"quoted\"\\";
    d.index = 0;
    d.type = "NVIDIA A100\n\xFF";
    d.mode = "mig";
    d.memory_total_mib = 40960;
    d.cores_total = 100;
    d.slots_used = 2;
    d.memory_used_mib = 3000;
    d.cores_used = 30;
    d.partitions.push_back({0, {"MIG-1", "1g.10gb", "1", "0", "0", "1"}});
    d.partitions.push_back({1, {"1g.10gb-1"}});
    DeviceUsage amd = d;
    amd.partitions.clear();
    amd.uuid = "amd-0";
    amd.type = "AMD Instinct MI300X VF";
    amd.mode = "";
    amd.cores_count = true;
    amd.cores_total = 304;
    amd.cores_used = 76;
    u.nodes.push_back({"node\"a", {d, amd}});
    u.pods.push_back(
        {"ml", "pod\nname\xC3", "node\"a", {{0, d.uuid, 1000, 10}, {3, "amd-0", 5, 76}}});
    u.quotas.push_back({"ml", "nvidia.com/gpumem", 1000, 5000});
    // nvidia.so's MIG families.
    u.partition_families.push_back({"hami_node_gpu_mig_instance_info",
                                    "Realized MIG instance identity and scheduler placement",
                                    {"mig_uuid", "profile", "gpu_instance_id",
                                     "compute_instance_id", "placement_start", "placement_size"},
                                    false});
    u.partition_families.push_back({"nodeGPUMigInstance",
                                    "GPU Sharing mode. 0 for hami-core, 1 for mig, 2 for mps",
                                    {"migname"},
                                    true});
    return u;
  }
};

std::string full_output(bool legacy) {
  MetricsRegistry registry;
  add_build_info(registry, this_build());
  add_hami_cluster_metrics(registry, std::make_shared<FixedSource>(), {.legacy_metrics = legacy});
  RequestMetrics requests(registry);
  requests.observe("/filter", "POST", 200, std::chrono::milliseconds(3));
  requests.observe("/webhook", "POST", 400, std::chrono::milliseconds(1));
  SchedulerMetrics scheduler(registry);
  scheduler.record_filter(FilterResult::fit, 10, 4);
  scheduler.record_bind(BindResult::success);
  scheduler.record_node_lock(LockResult::acquired, std::chrono::milliseconds(3));
  PluginMetrics plugins(registry);
  plugins.record({"nvidia", "hami-nvidia", "device", "0.1.0", "1.0", true});
  return registry.scrape();
}

CommandResult promtool_check(const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("hami-metrics-" + std::to_string(getpid()) + ".prom");
  {
    std::ofstream out(path, std::ios::binary);
    out << text;
  }
  CommandResult r = run("promtool check metrics < '" + path.string() + "'");
  std::filesystem::remove(path);
  return r;
}

// promtool's linter objects to names HAMi fixed long ago and dashboards
// depend on; these are the only complaints allowed.
bool expected_lint(const std::string& line, bool legacy) {
  if (line ==
      "hami_gpu_shared_count non-histogram and non-summary metrics should not have \"_count\" "
      "suffix")
    return true;
  return legacy && line.find("camelCase") != std::string::npos;
}

void expect_only_known_lint(const std::string& text, bool legacy) {
  const CommandResult r = promtool_check(text);
  // 0: clean; 3: lint problems only; anything else is a parse error.
  EXPECT_TRUE(r.status == 0 || r.status == 3) << r.status << ": " << r.output;
  std::istringstream lines(r.output);
  std::string line;
  while (std::getline(lines, line))
    EXPECT_TRUE(expected_lint(line, legacy)) << line;
}

TEST(Promtool, DetectsBrokenInput) {
  if (!have_promtool())
    GTEST_SKIP() << "promtool not installed (Debian package: prometheus); skipping";
  // The harness must be able to fail: an unterminated label value.
  EXPECT_EQ(promtool_check("# TYPE x gauge\nx{a=\"b} 1\n").status, 1);
}

TEST(Promtool, FullOutputPassesCheckMetrics) {
  if (!have_promtool())
    GTEST_SKIP() << "promtool not installed (Debian package: prometheus); skipping";
  const std::string text = full_output(false);
  ASSERT_NO_THROW(hami::testing::parse_exposition(text));
  expect_only_known_lint(text, false);
}

TEST(Promtool, LegacyNamesPassCheckMetrics) {
  if (!have_promtool())
    GTEST_SKIP() << "promtool not installed (Debian package: prometheus); skipping";
  const std::string text = full_output(true);
  ASSERT_NO_THROW(hami::testing::parse_exposition(text));
  expect_only_known_lint(text, true);
}

}  // namespace
