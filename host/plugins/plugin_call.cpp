#include "plugins/plugin_call.hpp"

#include <algorithm>
#include <stdexcept>

#include "plugins/plugin_text.hpp"

namespace hami::host {

std::string ErrorBuffer::message() const {
  const auto end = std::find(buffer_.begin(), buffer_.end(), '\0');
  // Shown in logs and replies: never pass on bytes that are not UTF-8.
  return sanitized_utf8(
      std::string_view(buffer_.data(), static_cast<std::size_t>(end - buffer_.begin())));
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
  if (s.len > kMaxPluginText) {
    invalid(std::string(what) + " is " + std::to_string(s.len) + " bytes, over the limit of " +
            std::to_string(kMaxPluginText));
    return {};
  }
  const std::string_view view(s.ptr, s.len);
  if (const auto bad = first_invalid_utf8(view)) {
    invalid(std::string(what) + " is not valid UTF-8 (byte " + std::to_string(*bad) + ")");
    return {};
  }
  return std::string(view);
}

void CallProblems::append(std::string& out, const char* bytes, std::size_t len) {
  if (bytes == nullptr && len != 0) {
    invalid("sink append got NULL bytes with length " + std::to_string(len));
    return;
  }
  if (len > kMaxPluginText - std::min(out.size(), kMaxPluginText)) {
    invalid("sink output grows over the limit of " + std::to_string(kMaxPluginText) + " bytes");
    return;
  }
  out.append(bytes, len);
}

void CallProblems::check_utf8_after(const std::string* text, const char* what) {
  if (utf8_check_count_ == kMaxUtf8Checks)
    throw std::logic_error("CallProblems: more than " + std::to_string(kMaxUtf8Checks) +
                           " UTF-8 checks for one call");
  utf8_checks_[utf8_check_count_++] = {text, what};
}

void CallProblems::report(const PluginInstance& plugin, std::string_view function) {
  if (host_error_) {
    std::rethrow_exception(host_error_);
  }
  for (size_t i = 0; i < utf8_check_count_; ++i) {
    const auto& [text, what] = utf8_checks_[i];
    if (const auto bad = first_invalid_utf8(*text))
      invalid(std::string(what) + " is not valid UTF-8 (byte " + std::to_string(*bad) + ")");
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
