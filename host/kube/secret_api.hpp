// Secrets (core v1) through the ApiClient: read one, create one, replace
// one under its resourceVersion precondition. Errors are the ApiClient's
// ApiError (409 reason AlreadyExists on create, Conflict on update).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "kube/api_client.hpp"

namespace hami::kube {

// "/api/v1/namespaces/<ns>/secrets[/<name>]"
std::string secret_path(std::string_view ns, std::string_view name = {});

// The Secret as JSON; nullopt on 404.
std::optional<std::string> get_secret(ApiClient& api, std::string_view ns, std::string_view name);
// POST; returns the stored object.
std::string create_secret(ApiClient& api, std::string_view ns, std::string_view secret_json);
// PUT; `secret_json` carries metadata.resourceVersion. Returns the stored object.
std::string update_secret(ApiClient& api, std::string_view ns, std::string_view name,
                          std::string_view secret_json);

}  // namespace hami::kube
