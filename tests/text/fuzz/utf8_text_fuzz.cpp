// UTF-8 validation and repair on arbitrary bytes: the fast prefix scan
// agrees with the sequence-by-sequence walk, repair always yields valid
// UTF-8, leaves valid text unchanged and never grows a byte into more than
// one replacement.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "text/utf8.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::size_t walked = 0;
  while (walked < input.size()) {
    const std::size_t n = hami::text::utf8_sequence_length(input, walked);
    if (n == 0)
      break;
    if (n > 4 || n > input.size() - walked)
      std::abort();
    walked += n;
  }
  if (hami::text::valid_utf8_prefix(input) != walked)
    std::abort();
  const std::string repaired = hami::text::to_valid_utf8(input);
  if (!hami::text::is_valid_utf8(repaired))
    std::abort();
  if (walked == input.size() && repaired != input)
    std::abort();
  if (repaired.size() > 3 * input.size())
    std::abort();
  return 0;
}
