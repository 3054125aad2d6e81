#include "conformance/report_text.hpp"

#include <algorithm>

namespace hami::conformance {

std::string format_totals(const std::vector<CheckResult>& results) {
  const auto count = [&](Outcome o) {
    return std::to_string(std::count_if(results.begin(), results.end(),
                                        [o](const CheckResult& r) { return r.outcome == o; }));
  };
  return std::to_string(results.size()) + " checks: " + count(Outcome::passed) + " passed, " +
         count(Outcome::failed) + " failed, " + count(Outcome::skipped) + " skipped";
}

std::string format_report(const PluginUnderTest& plugin, const std::vector<CheckResult>& results) {
  const hami_plugin_info& info = plugin.info();
  std::string out = "plugin  " + plugin.file().string() + "\n";
  out += "name    " + plugin.name() + " " + PluginUnderTest::text(info.version) + " (" +
         kind_word(info.kind) + " plugin, ABI " + std::to_string(info.abi_major) + "." +
         std::to_string(info.abi_minor) +
         ", concurrent calls: " + ((info.flags & HAMI_FLAG_CONCURRENT_SAFE) != 0 ? "yes" : "no") +
         ")\n\n";
  std::size_t width = 0;
  for (const CheckResult& r : results) {
    width = std::max(width, r.name.size());
  }
  for (const CheckResult& r : results) {
    const char* word = r.outcome == Outcome::passed   ? "PASS"
                       : r.outcome == Outcome::failed ? "FAIL"
                                                      : "SKIP";
    out +=
        std::string(word) + "  " + r.name + std::string(width + 2 - r.name.size(), ' ') + r.summary;
    if (r.outcome == Outcome::skipped && !r.note.empty()) {
      out += " (skipped: " + r.note + ")";
    }
    out += "\n";
    for (const std::string& problem : r.problems) {
      out += "      - " + problem + "\n";
    }
  }
  out += "\n" + format_totals(results) + "\n";
  return out;
}

}  // namespace hami::conformance
