// MIG profiles and placements as nvidia.so's fit reasons about them (HAMi's
// device.MigProfile and device.MigPlacement).
#ifndef HAMI_DEVICES_NVIDIA_MIG_TYPES_HPP
#define HAMI_DEVICES_NVIDIA_MIG_TYPES_HPP

#include <cstdint>
#include <string_view>
#include <vector>

namespace hami::devices::nvidia {

// GPU slices [start, start + size).
struct MigPlacement {
  std::uint32_t start = 0;
  std::uint32_t size = 0;
  friend bool operator==(const MigPlacement&, const MigPlacement&) = default;
};

struct MigProfile {
  std::string_view name;
  std::int32_t memory_mb = 0;
  std::int32_t core = 0;
  std::uint32_t slice_count = 0;
  std::vector<MigPlacement> placements;
};

// One MIG instance taken (or to be taken) on a GPU: the pick data of fit and
// what a pod holds there.
struct MigReservation {
  std::string_view profile;
  MigPlacement placement;
  friend bool operator==(const MigReservation&, const MigReservation&) = default;
};

}  // namespace hami::devices::nvidia

#endif  // HAMI_DEVICES_NVIDIA_MIG_TYPES_HPP
