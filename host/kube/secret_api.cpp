#include "kube/secret_api.hpp"

namespace hami::kube {

std::string secret_path(std::string_view ns, std::string_view name) {
  std::string path = "/api/v1/namespaces/" + std::string(ns) + "/secrets";
  if (!name.empty())
    path += "/" + std::string(name);
  return path;
}

std::optional<std::string> get_secret(ApiClient& api, std::string_view ns, std::string_view name) {
  try {
    return api.get(secret_path(ns, name)).body;
  } catch (const ApiError& e) {
    if (e.status() == 404)
      return std::nullopt;
    throw;
  }
}

std::string create_secret(ApiClient& api, std::string_view ns, std::string_view secret_json) {
  return api.post(secret_path(ns), secret_json).body;
}

std::string update_secret(ApiClient& api, std::string_view ns, std::string_view name,
                          std::string_view secret_json) {
  return api.put(secret_path(ns, name), secret_json).body;
}

}  // namespace hami::kube
