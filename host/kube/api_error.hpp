// Reading an error reply: the Status object the API server sends with every
// failure, and the Retry-After header.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "kube/api_client.hpp"

namespace hami::kube {

// The ApiError for a non-2xx reply. reason/message come from a Status body
// (kind Status, or any object with reason/message); other bodies give an
// empty reason and a message of the reply's first 256 bytes or, when empty,
// the HTTP reason phrase.
ApiError error_from_reply(int status, std::string_view reason_phrase, std::string_view body,
                          std::optional<std::chrono::seconds> retry_after);

// Retry-After as delta-seconds (the only form the API server sends);
// nullopt when absent or not a plain non-negative integer.
std::optional<std::chrono::seconds> parse_retry_after(std::string_view value);

}  // namespace hami::kube
