// Holds (ABI 1.1, HAMI-HOST-12): the pick data the charges on a node hold
// on each device, for vendors that record pick data. Keyed by device id, so
// a re-decoded node with its devices in another order keeps them.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "scheduling/pod_charge.hpp"

namespace hami::scheduling {

// Per vendor: device id → the holds on it (a multiset; order unspecified).
using NodeHolds = std::vector<std::map<std::string, std::vector<std::string>, std::less<>>>;

// Adds (sign > 0) or removes one occurrence of (sign < 0) each hold of `d`.
void apply_holds(NodeHolds& holds, const DeviceCharge& d, int sign);

// The holds of `vendor` on device `id`; nullptr when none.
const std::vector<std::string>* holds_on(const NodeHolds& holds, uint32_t vendor,
                                         std::string_view id);

}  // namespace hami::scheduling
