// The operator commands' command line: each one's --help, -v after the
// command, file errors with the operating system's reason, the memory bound
// of a workload and the progress line of a long simulate.
#include <gtest/gtest.h>

#include <sstream>

#include "ops/memory_budget.hpp"
#include "ops/ops_context.hpp"
#include "ops/progress_line.hpp"
#include "ops_test_support.hpp"

namespace hami::ops {
namespace {

using test::data_path;
using test::demo_args;
using test::run_command;

TEST(OpsCommandLine, EachCommandHasItsOwnHelpWithOptionsAndAnExample) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> commands = {
      {"explain", {"--pod NS/NAME", "--output text|json", "POD.yaml | -"}},
      {"simulate", {"--workload FILE", "--policies NODE/GPU", "--trace"}},
      {"snapshot", {"--anonymize"}},
  };
  for (const auto& [name, own] : commands) {
    for (const char* flag : {"--help", "-h"}) {
      const auto run = run_command(name, {flag});
      EXPECT_EQ(run.code, 0) << name;
      EXPECT_EQ(run.err, "") << name;
      EXPECT_TRUE(run.out.starts_with("usage: hami-scheduler " + name + " [OPTIONS]")) << run.out;
      for (const std::string& option : own)
        EXPECT_NE(run.out.find("\n  " + option), std::string::npos) << name << ": " << option;
      for (const char* common : {"\n  --config FILE", "\n  --plugin-dir DIR",
                                 "\n  --cluster SOURCE", "\n  -v, --verbose"}) {
        EXPECT_NE(run.out.find(common), std::string::npos) << name << ": " << common;
      }
      EXPECT_NE(run.out.find("\nExample"), std::string::npos) << name;
      EXPECT_NE(run.out.find("\n  hami-scheduler " + name + " --config"), std::string::npos)
          << run.out;
    }
  }
}

TEST(OpsCommandLine, AUsageErrorPointsToTheCommandsHelp) {
  const auto run = run_command("snapshot", {"--bogus"});
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(run.err,
            "snapshot: unexpected argument \"--bogus\"\n"
            "usage: hami-scheduler snapshot [OPTIONS] [--anonymize] > cluster.yaml\n"
            "Run 'hami-scheduler snapshot --help' for the options.\n");
}

// -v after the command logs at debug level, as before it for the server.
TEST(OpsCommandLine, VerboseAfterTheCommand) {
  std::vector<std::string> args = demo_args("dev", "demo-cluster");
  args.insert(args.end(), {"--workload", data_path("demo-workload.yaml")});
  const auto quiet = run_command("simulate", args);
  EXPECT_EQ(quiet.code, 0);
  EXPECT_EQ(quiet.err, "");
  for (const char* flag : {"-v", "--verbose"}) {
    std::vector<std::string> verbose = args;
    verbose.insert(verbose.begin(), flag);
    const auto run = run_command("simulate", verbose);
    EXPECT_EQ(run.code, 0) << run.err;
    EXPECT_EQ(run.out, quiet.out);
    EXPECT_NE(run.err.find(" info msg=\"plugin 'nvidia'"), std::string::npos) << run.err;
  }
}

TEST(OpsCommandLine, FileErrorsSayWhy) {
  auto run = run_command("simulate", {"--workload", "/nonexistent/w.yaml"});
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.err,
            "simulate: /nonexistent/w.yaml: cannot open the workload: No such file or directory\n");
  run = run_command("simulate", {"--workload", HAMI_OPS_DATA});
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.err, "simulate: " + std::string(HAMI_OPS_DATA) +
                         ": cannot read the workload: Is a directory\n");
  run = run_command("explain", {"/nonexistent/pod.yaml"});
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.err,
            "explain: /nonexistent/pod.yaml: cannot open the pod: No such file or directory\n");
}

TEST(MemoryBudget, MemAvailableOfProcMeminfo) {
  EXPECT_EQ(mem_available("MemTotal:       16314436 kB\nMemFree:  1 kB\nMemAvailable:    "
                          "8000000 kB\nBuffers: 2 kB\n"),
            uint64_t{8000000} * 1024);
  EXPECT_EQ(mem_available("MemTotal: 1 kB\n"), std::nullopt);
  EXPECT_EQ(mem_available("MemAvailable: x kB\n"), std::nullopt);
}

TEST(MemoryBudget, AWorkloadNeedingMoreThanIsAvailableIsRefusedWithTheBound) {
  std::vector<WorkloadPod> pods(1000, WorkloadPod{"ml", "p", std::string(1024 - 1, 'x') + "}"});
  // 16 KiB + 8 x 1 KiB = 24 KiB per pod.
  EXPECT_EQ(simulated_pod_bytes(pods.front()), 24u * 1024);
  EXPECT_NO_THROW(check_workload_memory(pods, 1000u * 24 * 1024));
  try {
    check_workload_memory(pods, 100u * 24 * 1024 + 5);
    FAIL() << "accepted";
  } catch (const OpsError& e) {
    EXPECT_STREQ(e.what(),
                 "the workload's 1000 pods need about 0.0 GiB to simulate, and 0.0 GiB of memory "
                 "is available: enough for about 100 pods; simulate a part of the workload, or "
                 "free memory");
  }
}

TEST(ProgressLine, RewritesOneLineAtMostEveryIntervalAndErasesIt) {
  using namespace std::chrono_literals;
  auto now = std::chrono::steady_clock::time_point{};
  std::ostringstream out;
  {
    ProgressLine line(out, 200ms, [&] { return now; });
    line.update("binpack/spread", 1, 3);  // the first is shown
    now += 150ms;
    line.update("binpack/spread", 2, 3);  // too soon
    now += 100ms;
    line.update("binpack/spread", 3, 3);
    now += 100ms;
    line.update("spread/binpack", 1, 3);  // too soon
    now += 100ms;
    line.update("spread/binpack", 2, 3);
    EXPECT_EQ(out.str(),
              "\r\x1b[Ksimulate: binpack/spread: 1 of 3 pods"
              "\r\x1b[Ksimulate: binpack/spread: 3 of 3 pods"
              "\r\x1b[Ksimulate: spread/binpack: 2 of 3 pods");
  }
  EXPECT_TRUE(out.str().ends_with("pods\r\x1b[K"));
  std::ostringstream quiet;
  {
    ProgressLine line(quiet, 200ms, [&] { return now; });
  }
  EXPECT_EQ(quiet.str(), "");  // nothing shown, nothing erased
}

TEST(ProgressLine, OnlyOnTheProcessStderr) {
  std::ostringstream err;
  EXPECT_FALSE(is_terminal_stderr(err));
}

}  // namespace
}  // namespace hami::ops
