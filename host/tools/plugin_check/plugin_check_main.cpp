// hami-plugin-check [--in-process] [--timeout SECONDS] [--quiet] PLUGIN.so...
//
// Loads each plugin file at the C ABI, runs every conformance check for its
// kind (the same checks the project's test suite runs over its own plugins)
// and prints a report per plugin. Each check runs in its own child process,
// so a crash or hang fails that check and the others still run;
// --in-process runs them in this process (for debuggers and sanitizers).
//
// Exit status: 0 every plugin passed every check, 1 some check failed,
// 2 a file could not be loaded as a plugin at all (or a usage error). The
// worst status over all files wins.
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/check_runner.hpp"
#include "conformance/plugin_under_test.hpp"
#include "conformance/report_text.hpp"

namespace {

constexpr int kPassed = 0;
constexpr int kFailed = 1;
constexpr int kCannotLoad = 2;

void usage(std::ostream& out) {
  out << "usage: hami-plugin-check [--in-process] [--timeout SECONDS] [--quiet] PLUGIN.so...\n"
         "Runs the hami-scheduler plugin conformance checks against each plugin file.\n"
         "  --in-process       run the checks in this process instead of one child each\n"
         "  --timeout SECONDS  per-check limit of isolated runs (default 30)\n"
         "  --quiet            print only failures and the totals\n"
         "Exit status: 0 all passed, 1 some check failed, 2 a file is not a loadable plugin.\n";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace hami::conformance;
  RunOptions options;
  bool quiet = false;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      usage(std::cout);
      return kPassed;
    }
    if (arg == "--in-process") {
      options.isolate = false;
    } else if (arg == "--quiet") {
      quiet = true;
    } else if (arg == "--timeout" && i + 1 < argc) {
      char* end = nullptr;
      const long seconds = std::strtol(argv[++i], &end, 10);
      if (end == nullptr || *end != '\0' || seconds <= 0 || seconds > 3600) {
        std::cerr << "hami-plugin-check: --timeout needs 1..3600 seconds\n";
        return kCannotLoad;
      }
      options.timeout = std::chrono::seconds(seconds);
    } else if (!arg.empty() && arg.front() == '-') {
      std::cerr << "hami-plugin-check: unknown option " << arg << "\n";
      usage(std::cerr);
      return kCannotLoad;
    } else {
      files.emplace_back(arg);
    }
  }
  if (files.empty()) {
    usage(std::cerr);
    return kCannotLoad;
  }

  int worst = kPassed;
  for (std::size_t n = 0; n < files.size(); ++n) {
    if (n > 0) {
      std::cout << "\n";
    }
    try {
      const PluginUnderTest plugin(files[n]);
      const std::vector<CheckResult> results = run_checks(plugin, options);
      bool failed = false;
      for (const CheckResult& r : results) {
        failed = failed || r.outcome == Outcome::failed;
      }
      if (quiet) {
        for (const CheckResult& r : results) {
          for (const std::string& problem : r.problems) {
            std::cout << files[n] << ": FAIL " << r.name << ": " << problem << "\n";
          }
        }
        std::cout << files[n] << ": " << format_totals(results) << "\n";
      } else {
        std::cout << format_report(plugin, results);
      }
      std::cout << "result  " << (failed ? "FAILED" : "PASSED") << "\n";
      if (failed && worst == kPassed) {
        worst = kFailed;
      }
    } catch (const CannotLoad& e) {
      std::cout << "plugin  " << files[n] << "\ncannot load: " << e.what()
                << "\nresult  NOT LOADED\n";
      worst = kCannotLoad;
    }
  }
  return worst;
}
