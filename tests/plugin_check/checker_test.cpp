// The conformance library as hami-plugin-check uses it: isolated runs, a
// plugin that passes, one that breaks the contract (and crashes), files that
// are not plugins, and the report a vendor reads.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "conformance/check_context.hpp"
#include "conformance/check_runner.hpp"
#include "conformance/plugin_under_test.hpp"
#include "conformance/report_text.hpp"

namespace hami::conformance {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

std::map<std::string, CheckResult> by_name(const std::vector<CheckResult>& results) {
  std::map<std::string, CheckResult> out;
  for (const CheckResult& r : results) {
    out.emplace(r.name, r);
  }
  return out;
}

TEST(PluginCheck, NvidiaPassesEveryDeviceCheckInIsolation) {
  const PluginUnderTest nvidia(NVIDIA_PLUGIN);
  EXPECT_EQ(nvidia.kind(), HAMI_KIND_DEVICE);
  const std::vector<CheckResult> results = run_checks(nvidia, RunOptions{});
  EXPECT_EQ(results.size(), checks_for(HAMI_KIND_DEVICE).size());
  for (const CheckResult& r : results) {
    EXPECT_NE(r.outcome, Outcome::failed)
        << r.name << ": " << (r.problems.empty() ? "" : r.problems.front());
  }
  EXPECT_THAT(format_totals(results), HasSubstr(" 0 failed"));
}

// Every device check passes (none is skipped but the concurrency one for a
// plugin that does not declare it), the 1.1 one included.
void expect_passes(const char* file) {
  const PluginUnderTest plugin(file);
  const std::vector<CheckResult> results = run_checks(plugin, RunOptions{});
  for (const CheckResult& r : results) {
    EXPECT_NE(r.outcome, Outcome::failed)
        << file << " " << r.name << ": " << (r.problems.empty() ? "" : r.problems.front());
  }
  const auto named = by_name(results);
  ASSERT_EQ(named.count("device-abi-1-1"), 1u);
  EXPECT_EQ(named.at("device-abi-1-1").outcome, Outcome::passed) << file;
  EXPECT_THAT(format_totals(results), HasSubstr(" 0 failed"));
}

TEST(PluginCheck, ShippedDevicePluginsPassThe11Checks) {
  EXPECT_EQ(PluginUnderTest(NVIDIA_PLUGIN).info().abi_minor, HAMI_ABI_MINOR);
  expect_passes(NVIDIA_PLUGIN);
  EXPECT_EQ(PluginUnderTest(AMD_PLUGIN).info().abi_minor, HAMI_ABI_MINOR);
  expect_passes(AMD_PLUGIN);
}

TEST(PluginCheck, APluginBuiltAgainstAbi10PassesAndSkipsThe11Check) {
  const PluginUnderTest vintage(VINTAGE_1_0);
  EXPECT_EQ(vintage.info().abi_major, 1);
  EXPECT_EQ(vintage.info().abi_minor, 0);
  const std::vector<CheckResult> results = run_checks(vintage, RunOptions{});
  EXPECT_EQ(results.size(), checks_for(HAMI_KIND_DEVICE).size());
  for (const CheckResult& r : results) {
    EXPECT_NE(r.outcome, Outcome::failed)
        << r.name << ": " << (r.problems.empty() ? "" : r.problems.front());
  }
  const auto named = by_name(results);
  EXPECT_EQ(named.at("device-allocation-round-trip").outcome, Outcome::passed);
  EXPECT_EQ(named.at("host-loader").outcome, Outcome::passed);
  EXPECT_EQ(named.at("device-abi-1-1").outcome, Outcome::skipped);
  EXPECT_EQ(named.at("device-abi-1-1").note,
            "reports ABI 1.0: the 1.1 members read as their defaults");
  const std::string report = format_report(vintage, results);
  EXPECT_THAT(report, HasSubstr("name    vintage 1.0.0 (device plugin, ABI 1.0, "
                                "concurrent calls: no)\n"));
  EXPECT_THAT(report, HasSubstr("SKIP  device-abi-1-1 "));
}

TEST(PluginCheck, ALiarsBad11MembersAreEachNamed) {
  const PluginUnderTest liar(LIAR_1_1);
  EXPECT_EQ(liar.info().abi_minor, 1);
  const auto results = by_name(run_checks(liar, RunOptions{}));
  // As a 1.0 device it is fine.
  EXPECT_EQ(results.at("device-describe").outcome, Outcome::passed);
  EXPECT_EQ(results.at("device-vtable").outcome, Outcome::passed);
  const CheckResult& r = results.at("device-abi-1-1");
  EXPECT_EQ(r.outcome, Outcome::failed);
  EXPECT_THAT(
      r.problems,
      ElementsAre(
          "describe: cores_unit 7 is neither HAMI_CORES_PERCENT (0) nor HAMI_CORES_COUNT (1)",
          "describe: vendor_flags has unknown bits 0x10 (known: HAMI_VENDOR_MULTI_PICK 0x1)",
          "describe: node_lock 5 is neither HAMI_NODE_LOCK_SHARED (0) nor HAMI_NODE_LOCK_NONE (1)",
          "describe: allocation_annotations[1] 'example.com/liar-extra' repeats an earlier entry",
          "describe: allocation_annotations[2] 'example.com/liar-allocated' is the allocated "
          "annotation",
          "describe: partition_metrics[0] name 'liar-partition' is not a valid Prometheus metric "
          "name",
          "describe: partition_metrics[1] 'liar_partition_info' has an empty help",
          "describe: partition_metrics[1] 'liar_partition_info' label 'device_uuid' collides "
          "with a device label the host adds (node, device_uuid, device_index, nodeid, "
          "deviceuuid, deviceidx)",
          "describe: partition_metrics[1] 'liar_partition_info' label '2nd' is not a valid "
          "Prometheus label name",
          "partition_metrics lists 2 families but describe_partitions is NULL"));
}

TEST(PluginCheck, Liar12IsToldEveryBad12Member) {
  const PluginUnderTest liar(LIAR_1_2);
  EXPECT_EQ(liar.info().abi_minor, 2);
  const auto results = by_name(run_checks(liar, RunOptions{}));
  EXPECT_EQ(results.at("device-describe").outcome, Outcome::passed);
  // HAMI_NODE_LOCK_OWN is a known value from 1.2 on.
  EXPECT_THAT(results.at("device-abi-1-1").problems, Not(Contains(HasSubstr("node_lock"))));
  const CheckResult& r = results.at("device-abi-1-2");
  EXPECT_EQ(r.outcome, Outcome::failed);
  EXPECT_THAT(r.problems,
              ElementsAre("describe: node_lock HAMI_NODE_LOCK_OWN with own_lock_annotation "
                          "'bad key!', which is not a valid annotation key",
                          "describe: own_lock_expiry_seconds 0 is not positive",
                          "score_placement of an empty placement is not finite",
                          "score_placement accepted a NULL input"));
}

TEST(PluginCheck, ShippedPluginsPassTheAbi12Check) {
  for (const char* file : {NVIDIA_PLUGIN, AMD_PLUGIN}) {
    const PluginUnderTest plugin(file);
    const auto results = by_name(run_checks(plugin, RunOptions{}));
    EXPECT_EQ(results.at("device-abi-1-2").outcome, Outcome::passed) << file;
  }
}

TEST(PluginCheck, BrokenDeviceFailsWithReadableReasons) {
  const PluginUnderTest broken(BROKEN_DEVICE);
  const auto results = by_name(run_checks(broken, RunOptions{}));
  EXPECT_EQ(results.at("negotiation").outcome, Outcome::passed);
  EXPECT_EQ(results.at("destroy-null").outcome, Outcome::passed);
  EXPECT_EQ(results.at("device-vtable").outcome, Outcome::passed);

  const CheckResult& bad_config = results.at("bad-config-rejected");
  EXPECT_EQ(bad_config.outcome, Outcome::failed);
  EXPECT_THAT(bad_config.problems,
              ElementsAre("create accepted the config [] (HAMI-PLUGIN-9)",
                          "create accepted the config not json (HAMI-PLUGIN-9)",
                          "create accepted the config 42 (HAMI-PLUGIN-9)"));

  const CheckResult& describe = results.at("device-describe");
  EXPECT_EQ(describe.outcome, Outcome::failed);
  EXPECT_THAT(describe.problems, ElementsAre("describe: empty vendor"));

  // decode_allocation aborts: the check fails, the run goes on.
  const CheckResult& garbage = results.at("device-garbage-allocations");
  EXPECT_EQ(garbage.outcome, Outcome::failed);
  EXPECT_THAT(garbage.problems, ElementsAre("crashed with signal 6 (Aborted)"));
  EXPECT_EQ(results.at("device-fit-without-devices").outcome, Outcome::passed);

  // The host validates configs itself, so its loader still takes the plugin.
  EXPECT_EQ(results.at("host-loader").outcome, Outcome::passed);

  // Answers NOT_FOUND to every registration, garbage or not; bytes a
  // terminal cannot show are escaped.
  const CheckResult& registrations = results.at("device-garbage-registrations");
  EXPECT_EQ(registrations.outcome, Outcome::failed);
  EXPECT_THAT(registrations.problems,
              ::testing::Contains("decode_node of the registration '\\xff\\xfe' gave "
                                  "HAMI_NOT_FOUND (5)"));
  EXPECT_THAT(registrations.problems,
              ::testing::Contains("decode_node of the registration '[{\"id\":\"a\\x00b\"}]' gave "
                                  "HAMI_NOT_FOUND (5)"));

  EXPECT_EQ(results.at("device-concurrent-calls").outcome, Outcome::skipped);
  EXPECT_THAT(results.at("device-concurrent-calls").note,
              HasSubstr("does not declare HAMI_FLAG_CONCURRENT_SAFE"));
}

TEST(PluginCheck, InProcessAndIsolatedRunsAgree) {
  const PluginUnderTest broken(BROKEN_DEVICE);
  for (const Check* check : checks_for(HAMI_KIND_DEVICE)) {
    if (check->name == "device-garbage-allocations" ||
        check->name == "device-allocation-round-trip") {
      continue;  // these abort the process
    }
    const CheckResult in_process = run_check(broken, *check, RunOptions{false, {}});
    const CheckResult isolated = run_check(broken, *check, RunOptions{});
    EXPECT_EQ(in_process.outcome, isolated.outcome) << check->name;
    EXPECT_EQ(in_process.problems, isolated.problems) << check->name;
    EXPECT_EQ(in_process.note, isolated.note) << check->name;
  }
}

TEST(PluginCheck, ReportNamesEachCheckAndProblem) {
  const PluginUnderTest broken(BROKEN_DEVICE);
  const std::vector<CheckResult> results = run_checks(broken, RunOptions{});
  const std::string report = format_report(broken, results);
  EXPECT_THAT(report, HasSubstr("plugin  " + std::string(BROKEN_DEVICE) + "\n"));
  EXPECT_THAT(report, HasSubstr("name    broken-device 0.0.1 (device plugin, ABI 1.2, "
                                "concurrent calls: no)\n"));
  EXPECT_THAT(report, HasSubstr("PASS  negotiation "));
  EXPECT_THAT(report, HasSubstr("FAIL  device-describe "));
  EXPECT_THAT(report, HasSubstr("\n      - describe: empty vendor\n"));
  EXPECT_THAT(report, HasSubstr("\n      - crashed with signal 6 (Aborted)\n"));
  EXPECT_THAT(report, HasSubstr("SKIP  device-concurrent-calls "));
  EXPECT_THAT(report, HasSubstr(std::to_string(results.size()) + " checks: "));
}

TEST(PluginCheck, FilesThatAreNotPluginsCannotLoad) {
  try {
    const PluginUnderTest text(NOT_A_PLUGIN);
    FAIL() << "a C source file loaded";
  } catch (const CannotLoad& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot be opened as a shared library"));
  }
  try {
    const PluginUnderTest no_entry(MISSING_ENTRY);
    FAIL() << "a library without the entry point loaded";
  } catch (const CannotLoad& e) {
    EXPECT_THAT(e.what(), HasSubstr("exports no hami_plugin_negotiate"));
  }
  EXPECT_THROW(PluginUnderTest("/nonexistent/plugin.so"), CannotLoad);
}

}  // namespace
}  // namespace hami::conformance
