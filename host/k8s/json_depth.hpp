// How deeply a JSON text nests arrays and objects, found without parsing.
//
// The JSON parsers (RapidJSON's recursive reader) use stack per level:
// a body of 100 000 '[' overflows a server thread's stack. The router
// refuses bodies nesting deeper than kMaxJsonDepth before any handler
// parses them, and the file cluster backend refuses such snapshots; real
// Kubernetes objects nest a few dozen levels.
#pragma once

#include <cstddef>
#include <string_view>

namespace hami::k8s {

inline constexpr std::size_t kMaxJsonDepth = 512;

// The deepest nesting of '[' / '{' outside string literals (escapes
// honoured), stopping as soon as it exceeds `stop_after`. Works on any
// bytes: malformed JSON is measured as far as brackets go.
std::size_t json_nesting_depth(std::string_view text, std::size_t stop_after = kMaxJsonDepth);

// True when `text` nests deeper than `limit`. A text with at most `limit`
// opening brackets in all cannot, and counting them is a vectorised pass
// over the bytes, so the exact scan runs only for the rare large bodies
// with more brackets than that.
bool json_nests_deeper_than(std::string_view text, std::size_t limit = kMaxJsonDepth);

}  // namespace hami::k8s
