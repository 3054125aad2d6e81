// What the charges on a node use of each of its devices.
#pragma once

#include <cstdint>
#include <vector>

namespace hami::scheduling {

struct DeviceUse {
  int32_t used = 0;  // tasks (slots)
  // Empty holds on the device (HAMI-HOST-12; device_holds.hpp keeps the
  // others). In the padding after `used`: the usage copies do not grow.
  int32_t empty_holds = 0;
  int64_t memory_mib = 0;
  int64_t cores = 0;
};
// Per vendor, aligned with VendorDevices::abi.
using NodeUse = std::vector<std::vector<DeviceUse>>;

}  // namespace hami::scheduling
