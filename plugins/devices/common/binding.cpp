#include "binding.hpp"

#include "hami/quantity.hpp"

namespace hami::devices {

std::int64_t resource_count(const KvList& list, std::string_view resource) {
  const auto text = list.find(resource);
  if (!text)
    return 0;
  const auto q = Quantity::parse(*text);
  const auto v = q ? q->ceil_int64() : std::nullopt;
  return v.value_or(0);
}

}  // namespace hami::devices
