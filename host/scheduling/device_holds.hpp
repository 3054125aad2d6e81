// Holds (ABI 1.1, HAMI-HOST-12): the pick data the charges on a node hold
// on each device, for vendors that record pick data. Aligned with the
// node's devices like its usage (NodeUse), and rebuilt with it when the
// node is decoded again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "scheduling/node_devices.hpp"
#include "scheduling/pod_charge.hpp"

namespace hami::scheduling {

// Per vendor, per device (VendorDevices::abi order): the holds on it, a
// multiset in no particular order. Vendors and devices without holds may
// be missing (shorter vectors).
using NodeHolds = std::vector<std::vector<std::vector<std::string>>>;

// Adds (sign > 0) or removes one occurrence of (sign < 0) each hold of `d`
// on device `k` of its vendor.
void apply_holds(NodeHolds& holds, size_t k, const DeviceCharge& d, int sign);

// `holds` minus what `charge` holds on `devices`' node.
void subtract_holds(const NodeDevices& devices, NodeHolds& holds, const PodCharge& charge);

// The holds on device `k` of `vendor`; nullptr when none.
inline const std::vector<std::string>* holds_on(const NodeHolds& holds, uint32_t vendor,
                                                size_t k) {
  if (vendor >= holds.size() || k >= holds[vendor].size() || holds[vendor][k].empty())
    return nullptr;
  return &holds[vendor][k];
}

}  // namespace hami::scheduling
