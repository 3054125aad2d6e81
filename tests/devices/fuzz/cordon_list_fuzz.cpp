// Fuzzes the hami.io/device-cordon list reader: the first line of the input
// is the annotation, the rest a UUID to look up.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pair_scores.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::size_t nl = text.find('\n');
  const std::string_view list = text.substr(0, nl);
  const std::string_view id =
      nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
  volatile bool listed = hami::devices::listed_in(list, id);
  (void)listed;
  return 0;
}
