// hami/policy_text.hpp — the grammar of policy texts (hami/scheduling.h):
// comma-separated words, white space (space, tab, CR, LF) around each word
// ignored. "binpack, numa" is the words "binpack" and "numa"; "a,,b" has an
// empty word between them. The host and policy plugins read policy texts
// with these, so both split them alike. Header-only; no ABI.
#ifndef HAMI_POLICY_TEXT_HPP
#define HAMI_POLICY_TEXT_HPP

#include <string_view>

namespace hami {
inline namespace abi_v1 {

// `text` without the white space around it.
[[nodiscard]] constexpr std::string_view trim_policy_word(std::string_view text) noexcept {
  constexpr std::string_view kSpace = " \t\r\n";
  const auto first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos)
    return {};
  return text.substr(first, text.find_last_not_of(kSpace) - first + 1);
}

// The first word of a policy text: "binpack, numa" → "binpack".
[[nodiscard]] constexpr std::string_view first_policy_word(std::string_view text) noexcept {
  return trim_policy_word(text.substr(0, text.find(',')));
}

// Calls `f(word)` for every word of `text` in order, trimmed, empty words
// included (an empty text is one empty word). `f` returns bool: false stops
// the walk, and the function then returns false; otherwise true.
template <class F>
constexpr bool for_each_policy_word(std::string_view text, F&& f) {
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const size_t end = comma == std::string_view::npos ? text.size() : comma;
    if (!f(trim_policy_word(text.substr(start, end - start))))
      return false;
    if (comma == std::string_view::npos)
      return true;
    start = comma + 1;
  }
}

}  // namespace abi_v1
}  // namespace hami

#endif  // HAMI_POLICY_TEXT_HPP
