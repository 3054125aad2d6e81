// Fuzzes hami/quantity.hpp: parsing and every exact conversion must be
// bounded and consistent (an int64 value is always an integer).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "hami/quantity.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto q = hami::Quantity::parse(text);
  if (!q)
    return 0;
  const auto exact = q->as_int64();
  const auto ceil = q->ceil_int64();
  if (exact && !q->is_integer())
    std::abort();
  if (exact && ceil && *exact != *ceil)
    std::abort();
  return 0;
}
