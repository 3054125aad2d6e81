// The conformance checks: each is a function over a PluginUnderTest that
// records what it found wrong in a CheckContext, so one check can report
// several problems, and the same check runs inside a GoogleTest suite and
// inside the hami-plugin-check tool.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/plugin_under_test.hpp"

namespace hami::conformance {

class CheckContext {
 public:
  // Records `problem` when `ok` is false; returns ok.
  bool expect(bool ok, std::string_view problem);
  void fail(std::string problem);
  // The check does not apply (e.g. concurrency checks of a plugin that does
  // not declare concurrent calls safe).
  void skip(std::string reason);

  [[nodiscard]] const std::vector<std::string>& problems() const noexcept { return problems_; }
  [[nodiscard]] const std::string& skip_reason() const noexcept { return skip_reason_; }
  [[nodiscard]] bool skipped() const noexcept { return !skip_reason_.empty(); }

 private:
  std::vector<std::string> problems_;
  std::string skip_reason_;
};

struct Check {
  std::string_view name;     // identifier, e.g. "negotiation"
  std::string_view summary;  // one line: what the plugin must do
  uint32_t kind;             // HAMI_KIND_* it applies to; 0: every kind
  void (*run)(const PluginUnderTest& plugin, CheckContext& context);
};

// Every check, generic ones first; those for one kind.
std::span<const Check> all_checks();
std::vector<const Check*> checks_for(uint32_t kind);

// Defined by generic_checks.cpp, device_checks.cpp, device_1_1_checks.cpp
// and device_1_2_checks.cpp (the members ABI 1.1 / 1.2 appended, for plugins
// of minor >= 1 / >= 2).
std::span<const Check> generic_checks();
std::span<const Check> device_checks();
std::span<const Check> device_1_1_checks();
std::span<const Check> device_1_2_checks();

}  // namespace hami::conformance
