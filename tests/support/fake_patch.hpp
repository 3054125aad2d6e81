// PATCH bodies: JSON merge patch (RFC 7386) and JSON patch (RFC 6902).
#pragma once

#include <optional>
#include <string>

#include "fake_json.hpp"

namespace hami::testing::fake {

// RFC 7386: objects merge recursively, null deletes, anything else
// (arrays included) replaces.
Json apply_merge_patch(Json target, const Json& patch);

// RFC 6902 (add, remove, replace, move, copy, test), applied in order, all
// or nothing. On failure returns nullopt and sets `error` to the message
// the API server's patch library gives, e.g. "testing value
// /metadata/resourceVersion failed: test failed". `test` follows that
// library (evanphx/json-patch v4): its path's parent must exist, and a
// member the parent object lacks passes a test for null — a test for
// absence.
std::optional<Json> apply_json_patch(const Json& target, const Json& operations,
                                     std::string& error);

}  // namespace hami::testing::fake
