#include "cambricon_profile.hpp"

#include "cambricon_names.hpp"

namespace hami::devices::cambricon {

std::optional<std::string> dsmlu_profile(std::span<const hami_placed_container> containers) {
  for (const hami_placed_container& c : containers) {
    if (c.devices_len == 0 || c.devices == nullptr)
      continue;
    const hami_placed_device& d = c.devices[0];
    return std::to_string(d.index) + "_" + std::to_string(d.cores) + "_" +
           std::to_string(d.memory_mib / kMemoryFactor);
  }
  return std::nullopt;
}

}  // namespace hami::devices::cambricon
