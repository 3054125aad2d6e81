// Fuzzes ascend.so's device attributes decoder (the NetworkID text between
// decode_node and fit / score_placement): any input must decode or fail
// with InvalidInput, and what decodes must encode back to text that decodes
// to the same value and falls in the same group.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "ascend_attributes.hpp"
#include "errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace hami::devices;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto id = ascend::decode_network_id(text);
    if (!id)
      return 0;
    const auto again = ascend::decode_network_id(ascend::encode_attributes(id));
    if (!again || *again != *id || ascend::network_group(*again) != ascend::network_group(*id)) {
      std::abort();
    }
  } catch (const InvalidInput&) {
  }
  return 0;
}
