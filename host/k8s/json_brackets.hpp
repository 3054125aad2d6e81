// The number of opening brackets ('[' and '{') in a JSON text, strings
// included: an upper bound of how deeply the text can nest, found in one
// pass that the compiler vectorises (byte counters per block of 255 bytes,
// so no counter overflows and no lane widens). A text with at most N of
// them nests at most N levels, whatever it contains.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>

namespace hami::k8s {

inline std::size_t json_open_brackets(std::string_view text) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t size = text.size();
  std::size_t total = 0;
  for (std::size_t at = 0; at < size;) {
    const std::size_t end = std::min(size, at + 255);
    unsigned char block = 0;
    for (; at < end; ++at)
      block = static_cast<unsigned char>(block + (bytes[at] == '[') + (bytes[at] == '{'));
    total += block;
  }
  return total;
}

}  // namespace hami::k8s
