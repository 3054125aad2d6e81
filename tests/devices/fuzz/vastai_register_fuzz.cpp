// Fuzzes the path of a Vastai registration into device attributes: the
// JSON registration decoder (custominfo included), the die facts taken from
// it and their attributes text, which must decode back to the same facts.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "errors.hpp"
#include "node_register.hpp"
#include "vastai_die.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace v = hami::devices::vastai;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto decoded = hami::devices::decode_register_json(text);
    for (const auto& d : decoded.devices()) {
      const v::DieInfo info = v::die_info(d);
      const std::string attributes = v::encode_die_attributes(info);
      if (!(v::decode_die_attributes(attributes) == info))
        __builtin_trap();
    }
  } catch (const hami::devices::InvalidInput&) {
  }
  return 0;
}
