#include "kube/api_error.hpp"

#include <rapidjson/document.h>

#include <charconv>
#include <utility>

namespace hami::kube {
namespace {

std::string describe(int status, const std::string& reason, const std::string& message) {
  if (status == 0)
    return message;
  std::string out = "HTTP " + std::to_string(status);
  if (!reason.empty())
    out += " " + reason;
  if (!message.empty())
    out += ": " + message;
  return out;
}

std::string member_string(const rapidjson::Value& object, const char* key) {
  const auto it = object.FindMember(key);
  if (it == object.MemberEnd() || !it->value.IsString())
    return {};
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

}  // namespace

ApiError::ApiError(int status, std::string reason, std::string message,
                   std::optional<std::chrono::seconds> retry_after)
    : std::runtime_error(describe(status, reason, message)),
      status_(status),
      reason_(std::move(reason)),
      message_(std::move(message)),
      retry_after_(retry_after) {}

ApiError error_from_reply(int status, std::string_view reason_phrase, std::string_view body,
                          std::optional<std::chrono::seconds> retry_after) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (!doc.HasParseError() && doc.IsObject()) {
    std::string reason = member_string(doc, "reason");
    std::string message = member_string(doc, "message");
    if (member_string(doc, "kind") == "Status" || !reason.empty() || !message.empty())
      return ApiError(status, std::move(reason), std::move(message), retry_after);
  }
  std::string message(body.substr(0, 256));
  if (message.empty())
    message = std::string(reason_phrase);
  return ApiError(status, "", std::move(message), retry_after);
}

std::optional<std::chrono::seconds> parse_retry_after(std::string_view value) {
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
    value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t'))
    value.remove_suffix(1);
  int64_t seconds = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (value.empty() || ec != std::errc{} || end != value.data() + value.size() || seconds < 0)
    return std::nullopt;
  return std::chrono::seconds(seconds);
}

std::string query_escape(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    const auto u = static_cast<unsigned char>(c);
    const bool unreserved = (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') ||
                            (u >= '0' && u <= '9') || u == '-' || u == '.' || u == '_' || u == '~';
    if (unreserved) {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 0xF];
    }
  }
  return out;
}

}  // namespace hami::kube
