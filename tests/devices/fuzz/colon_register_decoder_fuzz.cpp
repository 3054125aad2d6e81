// Fuzzes HAMi v2.10's colon registration decoder (hygon.so, iluvatar.so):
// any input must decode or fail with InvalidInput, never crash or loop, and
// a decoded device's id, type and mode never contain a separator.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "errors.hpp"
#include "node_register.hpp"

namespace {

bool has_separator(std::string_view s) {
  return s.find_first_of(",:") != std::string_view::npos;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto decoded = hami::devices::decode_register_colon(text);
    for (const auto& d : decoded.devices()) {
      if (has_separator(d.id) || has_separator(d.type) || has_separator(d.mode))
        std::abort();
    }
  } catch (const hami::devices::InvalidInput&) {
  }
  return 0;
}
