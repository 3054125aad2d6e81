// Writing JSON text by hand on the hot path (patch operations, the reply
// envelope) without building a DOM.
#pragma once

#include <string>
#include <string_view>

namespace hami::admission {

// Appends `text` as a JSON string literal (quotes included): '"' and '\\'
// are escaped, control characters become \n, \t, ... or \u00XX. Other bytes
// are copied (the decoder has already validated the input as UTF-8).
void append_json_string(std::string& out, std::string_view text);

}  // namespace hami::admission
