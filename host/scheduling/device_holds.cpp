#include "scheduling/device_holds.hpp"

#include <algorithm>

namespace hami::scheduling {

void apply_holds(NodeHolds& holds, DeviceUse& use, size_t k, const DeviceCharge& d, int sign) {
  for (const std::string& h : d.holds) {
    if (h.empty()) {
      use.empty_holds += sign > 0 ? 1 : -1;
      continue;
    }
    if (holds.size() <= d.vendor)
      holds.resize(d.vendor + 1);
    auto& by_device = holds[d.vendor];
    if (by_device.size() <= k)
      by_device.resize(k + 1);
    auto& list = by_device[k];
    if (sign > 0) {
      list.push_back(h);
    } else if (const auto found = std::find(list.begin(), list.end(), h); found != list.end()) {
      list.erase(found);
    }
  }
}

int32_t empty_holds(const DeviceCharge& d) {
  return static_cast<int32_t>(std::count_if(d.holds.begin(), d.holds.end(),
                                            [](const std::string& h) { return h.empty(); }));
}

void subtract_holds(const NodeDevices& devices, NodeHolds& holds, const PodCharge& charge) {
  for_each_charged(charge, devices.name(), [&](const DeviceCharge& d) {
    if (d.vendor >= devices.vendors().size())
      return;
    const size_t k = devices.vendors()[d.vendor].find(d.device_id);
    if (k == NodeDevices::npos)
      return;
    DeviceUse ignored;  // the empty holds: subtract_charge takes them off the usage
    apply_holds(holds, ignored, k, d, -1);
  });
}

}  // namespace hami::scheduling
