// Writing JSON text by hand on the hot path (patch operations, the reply
// envelope) without building a DOM.
#pragma once

#include <string>
#include <string_view>

#include "text/utf8.hpp"

namespace hami::admission {

// Appends `text` as a JSON string literal (quotes included): '"' and '\\'
// are escaped, control characters become \n, \t, ... or \u00XX, valid UTF-8
// is copied as is, and every byte that is not part of a valid UTF-8
// sequence becomes U+FFFD (as Go's encoder does), so the output is always
// valid JSON whatever the input.
void append_json_string(std::string& out, std::string_view text);

// UTF-8 validation is text/utf8.hpp's, the one every output uses.
using text::is_valid_utf8;
using text::valid_utf8_prefix;

}  // namespace hami::admission
