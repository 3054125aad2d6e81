#include "scheduling/device_holds.hpp"

#include <algorithm>

namespace hami::scheduling {

void apply_holds(NodeHolds& holds, size_t k, const DeviceCharge& d, int sign) {
  if (d.holds.empty())
    return;
  if (holds.size() <= d.vendor)
    holds.resize(d.vendor + 1);
  auto& by_device = holds[d.vendor];
  if (by_device.size() <= k)
    by_device.resize(k + 1);
  auto& list = by_device[k];
  if (sign > 0) {
    list.insert(list.end(), d.holds.begin(), d.holds.end());
    return;
  }
  for (const std::string& h : d.holds) {
    const auto found = std::find(list.begin(), list.end(), h);
    if (found != list.end())
      list.erase(found);
  }
}

void subtract_holds(const NodeDevices& devices, NodeHolds& holds, const PodCharge& charge) {
  for_each_charged(charge, devices.name(), [&](const DeviceCharge& d) {
    if (d.vendor >= devices.vendors().size())
      return;
    const size_t k = devices.vendors()[d.vendor].find(d.device_id);
    if (k != NodeDevices::npos)
      apply_holds(holds, k, d, -1);
  });
}

}  // namespace hami::scheduling
