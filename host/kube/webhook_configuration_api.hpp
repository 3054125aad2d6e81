// MutatingWebhookConfigurations (admissionregistration.k8s.io/v1,
// cluster-scoped) through the ApiClient: read one, JSON-patch one. Errors
// are the ApiClient's ApiError (a failed `test` operation is 422 Invalid).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "kube/api_client.hpp"

namespace hami::kube {

// "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/<name>"
std::string mutating_webhook_configuration_path(std::string_view name);

// The object as JSON; nullopt on 404.
std::optional<std::string> get_mutating_webhook_configuration(ApiClient& api,
                                                              std::string_view name);
// An RFC 6902 patch; returns the stored object.
std::string patch_mutating_webhook_configuration(ApiClient& api, std::string_view name,
                                                 std::string_view json_patch);

}  // namespace hami::kube
