#include "kube/api_client.hpp"

#include <utility>

namespace hami::kube {

ApiError::ApiError(int status, std::string reason, std::string message,
                   std::optional<std::chrono::seconds> retry_after)
    : std::runtime_error(status == 0 ? message
                                     : "HTTP " + std::to_string(status) +
                                           (reason.empty() ? "" : " " + reason) + ": " + message),
      status_(status),
      reason_(std::move(reason)),
      message_(std::move(message)),
      retry_after_(retry_after) {}

struct ApiClient::Impl {};

ApiClient::ApiClient(ApiConfig config, const log::Logger*, Sleeper)
    : config_(std::move(config)), impl_(std::make_unique<Impl>()) {}
ApiClient::~ApiClient() = default;

ApiResponse ApiClient::request(std::string_view, std::string_view, std::string_view,
                               std::string_view) {
  throw ApiError(0, "", "api client: transport not implemented yet");
}
ApiResponse ApiClient::get(std::string_view p) {
  return request("GET", p);
}
ApiResponse ApiClient::post(std::string_view p, std::string_view j) {
  return request("POST", p, j, "application/json");
}
ApiResponse ApiClient::put(std::string_view p, std::string_view j) {
  return request("PUT", p, j, "application/json");
}
ApiResponse ApiClient::patch(std::string_view p, PatchType, std::string_view b) {
  return request("PATCH", p, b, "application/merge-patch+json");
}
ApiResponse ApiClient::remove(std::string_view p) {
  return request("DELETE", p);
}
void ApiClient::watch(std::string_view, const std::function<bool(std::string_view)>&,
                      std::stop_token) {
  throw ApiError(0, "", "api client: watch not implemented yet");
}
ApiClientStats ApiClient::stats() const {
  return {};
}

std::string query_escape(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : value) {
    auto u = static_cast<unsigned char>(c);
    bool keep = (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') ||
                u == '-' || u == '.' || u == '_' || u == '~';
    if (keep) {
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
