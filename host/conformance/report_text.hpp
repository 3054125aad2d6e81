// The readable report of a conformance run, for people dropping in a plugin:
//
//   plugin  /usr/lib/hami-scheduler/plugins/nvidia.so
//   name    nvidia 1.0.0 (device plugin, ABI 1.0, concurrent calls: yes)
//
//   PASS  negotiation                 negotiates as ABI 1, a known kind, …
//   FAIL  device-describe             describe names the vendor, …
//         - describe: empty vendor
//   SKIP  device-concurrent-calls     … — does not declare …
//
//   18 checks: 16 passed, 1 failed, 1 skipped
#pragma once

#include <string>
#include <vector>

#include "conformance/check_runner.hpp"
#include "conformance/plugin_under_test.hpp"

namespace hami::conformance {

std::string format_report(const PluginUnderTest& plugin, const std::vector<CheckResult>& results);

// "N checks: P passed, F failed, S skipped".
std::string format_totals(const std::vector<CheckResult>& results);

}  // namespace hami::conformance
