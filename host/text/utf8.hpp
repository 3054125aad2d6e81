// UTF-8 as Kubernetes, Go and Prometheus accept it: no overlong forms, no
// UTF-16 surrogates (U+D800..U+DFFF), nothing above U+10FFFF. The one
// validator every output of the host uses.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "hami/go_text.hpp"

namespace hami::text {

// The length (1 to 4) of the valid UTF-8 sequence that starts at text[i],
// or 0 when the bytes there do not form one (the SDK's, hami/go_text.hpp,
// so plugins and host read UTF-8 alike).
using ::hami::utf8_sequence_length;

// The length of the longest prefix of `text` that is valid UTF-8:
// text.size() when all of it is. ASCII runs are checked eight bytes at a
// time.
std::size_t valid_utf8_prefix(std::string_view text) noexcept;

inline bool is_valid_utf8(std::string_view text) noexcept {
  return valid_utf8_prefix(text) == text.size();
}

// `text` with each run of bytes that are not valid UTF-8 replaced by one
// U+FFFD, as Go's strings.ToValidUTF8(text, "\uFFFD").
std::string to_valid_utf8(std::string_view text);

}  // namespace hami::text
