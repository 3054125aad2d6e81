// Passing over a JSON member's value without tokenising it.
//
// Most of a full Node object is what the scheduler never reads (images,
// conditions, managed fields). Handing each of its tokens to a SAX handler
// only to drop it was a third of decoding the 5 MB request of a thousand
// nodes; a structural scan of the same bytes costs a fraction of that.
#pragma once

#include <cstddef>

namespace hami::extender {

// `at` points just after an object member's key (its closing quote), in a
// text that has a NUL at `end`. Returns the first character after the
// member's value: whitespace, the ':' and the value are passed over and
// found to be valid JSON as RapidJSON's default reader defines it (no
// comments, no trailing commas, NaN or Infinity).
//
// Returns nullptr whenever it is not sure, and then the caller reads the
// member as usual, so every error and its offset come from the reader:
// invalid JSON, the end of the text, a \u escape, a number with an
// exponent or more than 18 digits in a part, or containers nesting more
// than `depth_budget` levels below the member (the reader's own bound).
// Accepting only what the reader would accept is the contract; refusing
// some of it is allowed.
const char* skip_member_value(const char* at, const char* end, std::size_t depth_budget);

}  // namespace hami::extender
