#include "plugins/plugin_call.hpp"

#include <algorithm>

namespace hami::host {

std::string ErrorBuffer::message() const {
  const auto end = std::find(buffer_.begin(), buffer_.end(), '\0');
  return std::string(buffer_.begin(), end);
}

void CallProblems::invalid(std::string what) noexcept {
  if (invalid_.empty()) {
    invalid_ = std::move(what);
  }
}

std::string CallProblems::text(hami_str s, const char* what) {
  if (s.ptr == nullptr) {
    if (s.len != 0) {
      invalid(std::string(what) + " is NULL with length " + std::to_string(s.len));
    }
    return {};
  }
  return std::string(s.ptr, s.len);
}

void CallProblems::report(const PluginInstance& plugin, std::string_view function) const {
  if (host_error_) {
    std::rethrow_exception(host_error_);
  }
  if (!invalid_.empty()) {
    throw_invalid_output(plugin, function, invalid_);
  }
}

std::string call_message(const PluginInstance& plugin, std::string_view function,
                         std::string_view what) {
  std::string message = plugin.name();
  message.append(".").append(function).append(": ").append(what);
  return message;
}

PluginCallError status_error(const PluginInstance& plugin, std::string_view function,
                             hami_status status, const ErrorBuffer& err) {
  std::string text = err.message();
  if (!is_known_status(status)) {
    // HAMI-HOST-6: a code outside the ABI's list is treated as INTERNAL.
    text = "returned unknown status " + std::to_string(status) +
           (text.empty() ? std::string(" and no message") : ": " + text);
    return PluginCallError(HAMI_INTERNAL, call_message(plugin, function, text));
  }
  if (text.empty()) {
    text = "failed with " + std::string(status_name(status)) + " and no message";
  }
  return PluginCallError(status, call_message(plugin, function, text));
}

void throw_invalid_output(const PluginInstance& plugin, std::string_view function,
                          std::string_view what) {
  throw PluginCallError(HAMI_INTERNAL,
                        call_message(plugin, function, "invalid output: " + std::string(what)));
}

}  // namespace hami::host
