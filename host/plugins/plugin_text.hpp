// Checks on text a plugin hands to the host. Plugin strings end up in JSON
// replies, pod annotations, Kubernetes events and logs, so they must be
// valid UTF-8 and of a sane size; the host never passes on what fails.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace hami::host {

// The most bytes one plugin string or one sink's output may hold.
inline constexpr std::size_t kMaxPluginText = 1024u * 1024u;

// The offset of the first byte that does not start or continue a valid
// UTF-8 sequence (overlong forms, surrogates and code points above
// U+10FFFF are invalid); nullopt when `text` is valid.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

// `text` with every invalid byte replaced by '?', for messages the host
// shows anyway (a plugin's error text).
std::string sanitized_utf8(std::string_view text);

}  // namespace hami::host
