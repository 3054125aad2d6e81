// What is wrong with a JSON text, in RapidJSON's words: the message and
// offset its default reader gives, e.g.
//   invalid JSON at offset 7: Invalid value.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace hami::extender {

struct JsonSyntaxError {
  std::string message;  // "invalid JSON at offset N: ...", or the depth message
  bool too_deep = false;
};

// `text` is followed by a NUL, which ends it (as a NUL inside it does).
// Containers nesting deeper than `max_depth` are an error of their own.
// nullopt: RapidJSON's reader accepts the text.
std::optional<JsonSyntaxError> json_syntax_error(std::string_view text, std::size_t max_depth);

}  // namespace hami::extender
