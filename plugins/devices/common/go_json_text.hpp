// JSON strings as Go's encoding/json writes them (json.Marshal, HTML-safe):
// '"' and '\\' escaped, \b \f \n \r \t short, other control characters and
// '<' '>' '&' as \u00XX, U+2028 and U+2029 as \u2028 / \u2029, and each byte
// of invalid UTF-8 as \ufffd.
#ifndef HAMI_DEVICES_COMMON_GO_JSON_TEXT_HPP
#define HAMI_DEVICES_COMMON_GO_JSON_TEXT_HPP

#include <string>
#include <string_view>

namespace hami::devices {

// Appends `s` as a quoted JSON string.
void append_go_json_string(std::string& out, std::string_view s);

// `s` with each byte that is not part of valid UTF-8 replaced by U+FFFD, as
// Go's decoder stores a JSON string.
std::string go_decoded_string(std::string_view s);

}  // namespace hami::devices

#endif  // HAMI_DEVICES_COMMON_GO_JSON_TEXT_HPP
