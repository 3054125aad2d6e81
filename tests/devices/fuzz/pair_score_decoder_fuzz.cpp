// Fuzzes the hami.io/node-nvidia-score decoder.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "errors.hpp"
#include "pair_scores.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto scores = hami::devices::decode_pair_scores(text);
    volatile std::size_t n = scores.size();
    (void)n;
  } catch (const hami::devices::InvalidInput&) {
  }
  return 0;
}
