#include "scheduling/device_holds.hpp"

#include <algorithm>

namespace hami::scheduling {

void apply_holds(NodeHolds& holds, const DeviceCharge& d, int sign) {
  if (d.holds.empty())
    return;
  if (holds.size() <= d.vendor)
    holds.resize(d.vendor + 1);
  auto& by_device = holds[d.vendor];
  if (sign > 0) {
    auto& list = by_device[d.device_id];
    list.insert(list.end(), d.holds.begin(), d.holds.end());
    return;
  }
  const auto it = by_device.find(d.device_id);
  if (it == by_device.end())
    return;
  for (const std::string& h : d.holds) {
    const auto found = std::find(it->second.begin(), it->second.end(), h);
    if (found != it->second.end())
      it->second.erase(found);
  }
  if (it->second.empty())
    by_device.erase(it);
}

const std::vector<std::string>* holds_on(const NodeHolds& holds, uint32_t vendor,
                                         std::string_view id) {
  if (vendor >= holds.size())
    return nullptr;
  const auto it = holds[vendor].find(id);
  return it == holds[vendor].end() ? nullptr : &it->second;
}

}  // namespace hami::scheduling
