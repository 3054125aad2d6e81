// Fuzzes vastai.so's device attributes decoder (vastai_die.hpp): any input
// must decode or fail with InvalidInput, never crash; and a text that
// decodes is the one text of its value (encoding it gives it back).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "errors.hpp"
#include "vastai_die.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto info = hami::devices::vastai::decode_die_attributes(text);
    if (hami::devices::vastai::encode_die_attributes(info) != text)
      __builtin_trap();
    // Touch the views so ASan sees a dangling one.
    volatile bool die = info.is_die() && info.card().has_value();
    (void)die;
  } catch (const hami::devices::InvalidInput&) {
  }
  return 0;
}
