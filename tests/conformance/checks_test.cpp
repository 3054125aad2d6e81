// Conformance: every check of hami_conformance (host/conformance/, the same
// checks hami-plugin-check runs for vendors) against every plugin the build
// produces, one test per plugin and check, run in this process so the
// sanitizer builds see the plugins' code. Test names are
// Built/Conformance.Check/<plugin>__<check>.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

#include "conformance.hpp"
#include "conformance/check_context.hpp"
#include "conformance/check_runner.hpp"
#include "conformance/plugin_under_test.hpp"

namespace hami::conformance {
namespace {

struct Case {
  BuiltPlugin plugin;
  const Check* check;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.plugin.file << " " << c.check->name;
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const BuiltPlugin& plugin : built_plugins()) {
    for (const Check* check : checks_for(plugin.kind)) {
      out.push_back(Case{plugin, check});
    }
  }
  return out;
}

// Each library is opened once for the whole program and stays mapped.
const PluginUnderTest& open(const BuiltPlugin& plugin) {
  static std::map<std::string, std::unique_ptr<PluginUnderTest>> cache;
  static std::mutex mutex;
  const std::lock_guard lock(mutex);
  auto& slot = cache[plugin.path().string()];
  if (!slot) {
    slot = std::make_unique<PluginUnderTest>(plugin.path());
  }
  return *slot;
}

TEST(ConformanceSetup, TheBuildProducedPluginsInThePluginDirectory) {
  // Failing loudly beats a suite that passes because it checked nothing.
  ASSERT_FALSE(built_plugins().empty())
      << "no hami_add_plugin() targets in this build: the conformance suite has nothing to check";
  for (const auto& p : built_plugins()) {
    EXPECT_TRUE(std::filesystem::is_regular_file(p.path()))
        << p.file << " is missing from " << plugin_directory();
  }
}

TEST(ConformanceSetup, TheVendorPluginsAreBuilt) {
  // The vendor plugins are part of every build; without them the device
  // checks would check nothing.
  std::vector<std::string> files;
  for (const BuiltPlugin& p : built_plugins(HAMI_KIND_DEVICE)) {
    files.push_back(p.file);
  }
  EXPECT_NE(std::find(files.begin(), files.end(), "nvidia.so"), files.end());
  EXPECT_NE(std::find(files.begin(), files.end(), "amd.so"), files.end());
  EXPECT_NE(std::find(files.begin(), files.end(), "biren.so"), files.end());
  EXPECT_NE(std::find(files.begin(), files.end(), "hygon.so"), files.end());
  EXPECT_NE(std::find(files.begin(), files.end(), "iluvatar.so"), files.end());
}

TEST(ConformanceSetup, EveryKindHasItsChecks) {
  EXPECT_GE(checks_for(HAMI_KIND_DEVICE).size(), 20u);
  EXPECT_EQ(checks_for(HAMI_KIND_ADMISSION).size(), generic_checks().size());
  EXPECT_EQ(checks_for(HAMI_KIND_SCHEDULING).size(), generic_checks().size());
}

class Conformance : public ::testing::TestWithParam<Case> {};

TEST_P(Conformance, Check) {
  const Case& c = GetParam();
  ASSERT_TRUE(std::filesystem::is_regular_file(c.plugin.path()))
      << c.plugin.path() << " was not built into the plugin directory " << plugin_directory();
  const PluginUnderTest* plugin = nullptr;
  try {
    plugin = &open(c.plugin);
  } catch (const CannotLoad& e) {
    FAIL() << e.what();
  }
  ASSERT_EQ(plugin->kind(), c.plugin.kind)
      << c.plugin.file << " negotiates as a " << kind_word(plugin->kind())
      << " plugin; the build declared it " << kind_word(c.plugin.kind);
  const CheckResult result = run_check(*plugin, *c.check, RunOptions{false, {}});
  if (result.outcome == Outcome::skipped) {
    GTEST_SKIP() << result.note;
  }
  std::string problems;
  for (const std::string& p : result.problems) {
    problems += "\n  - " + p;
  }
  EXPECT_EQ(result.outcome, Outcome::passed) << c.check->summary << ":" << problems;
}

INSTANTIATE_TEST_SUITE_P(Built, Conformance, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& param) {
                           std::string name = test_name(param.param.plugin) + "__" +
                                              std::string(param.param.check->name);
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace hami::conformance
