// Fuzzes the node registration decoder (JSON and legacy colon forms): any
// input must decode or fail with InvalidInput, never crash or loop.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "errors.hpp"
#include "node_register.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto decoded = hami::devices::decode_register(text, hami::devices::RegisterForm::Legacy);
    for (const auto& d : decoded.devices()) {
      // Touch every view so ASan sees a dangling one.
      volatile std::size_t n = d.id.size() + d.type.size() + d.mode.size();
      for (const auto& c : d.custom_info)
        n = n + c.key.size() + c.text.size();
      (void)n;
    }
  } catch (const hami::devices::InvalidInput&) {
  }
  return 0;
}
