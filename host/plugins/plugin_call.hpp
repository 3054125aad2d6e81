// The mechanics shared by every handle method: an error buffer per call,
// catching anything that escapes a plugin, turning statuses into
// PluginCallError, and collecting problems found inside host callbacks
// (which must never throw back into plugin code).
#pragma once

#include <array>
#include <exception>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hami/plugin.h"
#include "plugins/plugin_errors.hpp"
#include "plugins/plugin_instance.hpp"

namespace hami::host {

// Host-owned error buffer for one call (HAMI-PLUGIN-4).
class ErrorBuffer {
 public:
  [[nodiscard]] hami_errbuf view() noexcept { return hami_errbuf{buffer_.data(), buffer_.size()}; }
  // The text up to the first NUL; a plugin that forgot the NUL is cut at the
  // buffer's end.
  [[nodiscard]] std::string message() const;

 private:
  std::array<char, 1024> buffer_{};
};

// Problems seen by host callbacks during one plugin call. Callbacks record;
// the handle method reports after the plugin returned.
class CallProblems {
 public:
  // Runs `body` (a host callback's work); an exception is kept, not thrown.
  template <class F>
  void run(F&& body) noexcept {
    try {
      std::forward<F>(body)();
    } catch (...) {
      if (!host_error_) {
        host_error_ = std::current_exception();
      }
    }
  }

  // The plugin passed something the ABI forbids (a NULL string with a
  // length, an undersized struct, …).
  void invalid(std::string what) noexcept;

  // A borrowed plugin string as std::string; records {NULL, n > 0}, a
  // string over kMaxPluginText and invalid UTF-8 (and then returns "").
  std::string text(hami_str s, const char* what);

  // A sink append: records NULL bytes with a length and output growing
  // over kMaxPluginText (the bytes are then dropped).
  void append(std::string& out, const char* bytes, std::size_t len);

  // Sink output `text` (which must outlive the call) is checked for valid
  // UTF-8 once the call is over: appends may split a character.
  void check_utf8_after(const std::string* text, const char* what);

  // After the call: rethrows a host-side exception, or throws
  // PluginCallError(HAMI_INTERNAL) for invalid plugin output.
  void report(const PluginInstance& plugin, std::string_view function);

 private:
  std::exception_ptr host_error_;
  std::string invalid_;
  // A call checks at most a couple of texts; a fixed array keeps the
  // per-call bookkeeping off the heap (fit runs once per node per filter).
  static constexpr size_t kMaxUtf8Checks = 4;
  std::array<std::pair<const std::string*, const char*>, kMaxUtf8Checks> utf8_checks_{};
  size_t utf8_check_count_ = 0;
};

// "<plugin>.<function>: <what>".
std::string call_message(const PluginInstance& plugin, std::string_view function,
                         std::string_view what);

// The error for a non-OK status; unknown codes become HAMI_INTERNAL.
PluginCallError status_error(const PluginInstance& plugin, std::string_view function,
                             hami_status status, const ErrorBuffer& err);

// Invalid output detected after a call.
[[noreturn]] void throw_invalid_output(const PluginInstance& plugin, std::string_view function,
                                       std::string_view what);

// Runs one plugin call. An exception escaping the plugin (a C++ plugin
// without the SDK barrier breaks HAMI-PLUGIN-5) becomes PluginCallError
// HAMI_INTERNAL; the host does not go down.
template <class F>
hami_status invoke_plugin(const PluginInstance& plugin, std::string_view function, F&& call) {
  try {
    return std::forward<F>(call)();
  } catch (const std::exception& e) {
    throw PluginCallError(
        HAMI_INTERNAL,
        call_message(plugin, function, std::string("exception escaped the plugin: ") + e.what()));
  } catch (...) {
    throw PluginCallError(HAMI_INTERNAL,
                          call_message(plugin, function, "unknown exception escaped the plugin"));
  }
}

// invoke_plugin, then status_error for anything but HAMI_OK.
template <class F>
void call_plugin(const PluginInstance& plugin, std::string_view function, ErrorBuffer& err,
                 F&& call) {
  const hami_status status = invoke_plugin(plugin, function, std::forward<F>(call));
  if (status != HAMI_OK) {
    throw status_error(plugin, function, status, err);
  }
}

}  // namespace hami::host
