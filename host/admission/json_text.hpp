// Writing JSON text by hand on the hot path (patch operations, the reply
// envelope) without building a DOM.
#pragma once

#include <string>
#include <string_view>

namespace hami::admission {

// Appends `text` as a JSON string literal (quotes included): '"' and '\\'
// are escaped, control characters become \n, \t, ... or \u00XX, valid UTF-8
// is copied as is, and every byte that is not part of a valid UTF-8
// sequence becomes U+FFFD (as Go's encoder does), so the output is always
// valid JSON whatever the input.
void append_json_string(std::string& out, std::string_view text);

// The length of the longest prefix of `text` that is valid UTF-8 (no
// overlong forms, no surrogates, nothing above U+10FFFF): text.size() when
// all of it is. ASCII runs are checked eight bytes at a time.
size_t valid_utf8_prefix(std::string_view text) noexcept;

inline bool is_valid_utf8(std::string_view text) noexcept {
  return valid_utf8_prefix(text) == text.size();
}

}  // namespace hami::admission
