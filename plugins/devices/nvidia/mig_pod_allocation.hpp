// A pod's NVIDIA allocation with its MIG reservations, in the shape the 1.1
// calls use (HAMI-HOST-11):
//
// annotate: hami.io/vgpu-mig-allocations is HAMi's EncodeMigAllocations of
//   the devices whose pick data carries a reservation — containerIndex is
//   the segment (init containers first), deviceIndex the device's position
//   in it.
//
// decode: the allocation string (allocated, else to-allocate) gives the
//   entries; the MIG annotation's reservations are attached as
//   getNodesUsage consumes them: in container then device order each entry
//   takes the first remaining reservation for its GPU UUID, and the
//   reservations left for a GPU the pod lists go to that GPU's last entry.
//   Reservations of GPUs the pod does not list are dropped. A MIG
//   annotation DecodeMigAllocations rejects counts as none, as in HAMi.
#ifndef HAMI_DEVICES_NVIDIA_MIG_POD_ALLOCATION_HPP
#define HAMI_DEVICES_NVIDIA_MIG_POD_ALLOCATION_HPP

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "allocation_codec.hpp"
#include "hami/device.h"

namespace hami::devices::nvidia {

// The MIG annotation value for an allocation, or nullopt when no device
// carries a reservation. Throws InvalidInput when a device's data is not
// pick data of one reservation.
std::optional<std::string> mig_annotation_for(std::span<const hami_placed_container> containers);

struct PlacedEntry {
  AllocatedDevice device;  // views into the allocation text
  std::string data;        // mig_reservation.hpp; "" for none
};
using PlacedAllocation = std::vector<std::vector<PlacedEntry>>;

// Throws InvalidInput when `allocation` is malformed; a bad `mig` value
// means no reservations.
PlacedAllocation decode_placed_allocation(std::string_view allocation,
                                          std::optional<std::string_view> mig);

}  // namespace hami::devices::nvidia

#endif  // HAMI_DEVICES_NVIDIA_MIG_POD_ALLOCATION_HPP
