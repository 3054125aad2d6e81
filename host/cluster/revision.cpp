#include "cluster/revision.hpp"

#include <charconv>

namespace hami::cluster {

std::optional<uint64_t> revision_of(std::string_view resource_version) {
  uint64_t v = 0;
  const char* end = resource_version.data() + resource_version.size();
  const auto res = std::from_chars(resource_version.data(), end, v);
  if (res.ec != std::errc() || res.ptr != end)
    return std::nullopt;
  return v;
}

}  // namespace hami::cluster
