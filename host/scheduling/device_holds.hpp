// Holds (ABI 1.1, HAMI-HOST-12): the pick data the charges on a node hold
// on each device, for vendors that record pick data. Aligned with the
// node's devices like its usage (NodeUse), and rebuilt with it when the
// node is decoded again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "scheduling/device_use.hpp"
#include "scheduling/node_devices.hpp"
#include "scheduling/pod_charge.hpp"

namespace hami::scheduling {

// Per vendor, per device (VendorDevices::abi order): the non-empty holds on
// it, a multiset in no particular order. Most holds are empty (pods of a
// recording vendor on a device that needs no data, e.g. whole-device
// shares): those are only counted, in DeviceUse::empty_holds, which the
// node's usage carries anyway. Vendors and devices without non-empty holds
// may be missing (shorter vectors).
using NodeHolds = std::vector<std::vector<std::vector<std::string>>>;

// Adds (sign > 0) or removes one occurrence of (sign < 0) each hold of `d`
// on device `k` of its vendor: the empty ones to `use`, the rest to `holds`.
void apply_holds(NodeHolds& holds, DeviceUse& use, size_t k, const DeviceCharge& d, int sign);

// The number of empty holds of `d`.
int32_t empty_holds(const DeviceCharge& d);

// `holds` minus the non-empty holds `charge` has on `devices`' node (its
// empty ones: subtract_charge).
void subtract_holds(const NodeDevices& devices, NodeHolds& holds, const PodCharge& charge);

// The non-empty holds on device `k` of `vendor`; nullptr when none.
inline const std::vector<std::string>* holds_on(const NodeHolds& holds, uint32_t vendor, size_t k) {
  if (vendor >= holds.size() || k >= holds[vendor].size() || holds[vendor][k].empty())
    return nullptr;
  return &holds[vendor][k];
}

}  // namespace hami::scheduling
