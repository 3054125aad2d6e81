// Runs conformance checks against a PluginUnderTest and collects results.
//
// Isolation: with RunOptions::isolate (the tool's default) every check runs
// in a forked child process, so a plugin that crashes, aborts or hangs
// fails that one check — "crashed with signal 11 (Segmentation fault)",
// "did not finish within 30 s" — and the remaining checks still run.
// Without it (the test suite) checks run in this process, where sanitizers
// and debuggers see them.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "conformance/check_context.hpp"
#include "conformance/plugin_under_test.hpp"

namespace hami::conformance {

enum class Outcome { passed, failed, skipped };

struct CheckResult {
  std::string name;
  std::string summary;
  Outcome outcome = Outcome::passed;
  std::vector<std::string> problems;  // failed: what was wrong
  std::string note;                   // skipped: why
};

struct RunOptions {
  bool isolate = true;
  std::chrono::seconds timeout{30};  // per check, isolated runs only
};

CheckResult run_check(const PluginUnderTest& plugin, const Check& check, const RunOptions& options);

// Every check for the plugin's kind, in order.
std::vector<CheckResult> run_checks(const PluginUnderTest& plugin, const RunOptions& options);

}  // namespace hami::conformance
