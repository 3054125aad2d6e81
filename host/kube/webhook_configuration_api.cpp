#include "kube/webhook_configuration_api.hpp"

namespace hami::kube {

std::string mutating_webhook_configuration_path(std::string_view name) {
  return "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/" + std::string(name);
}

std::optional<std::string> get_mutating_webhook_configuration(ApiClient& api,
                                                              std::string_view name) {
  try {
    return api.get(mutating_webhook_configuration_path(name)).body;
  } catch (const ApiError& e) {
    if (e.status() == 404)
      return std::nullopt;
    throw;
  }
}

std::string patch_mutating_webhook_configuration(ApiClient& api, std::string_view name,
                                                 std::string_view json_patch) {
  return api.patch(mutating_webhook_configuration_path(name), PatchType::json, json_patch).body;
}

}  // namespace hami::kube
