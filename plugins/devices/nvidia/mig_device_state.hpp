// What one fit call knows about a MIG-mode device: its profiles (from the
// registration attributes), the placements other pods and this pod's earlier
// containers hold on it (the fit input's holds), and the placements this
// container's picks take so far (HAMi's MigAllocationsInUse plus the
// tmpDevs that CustomFilterRule replays).
//
// Fail closed (getNodesUsage): a MIG-mode device with a hold that carries no
// reservation ("", a pod whose MIG annotation has none for it) or that is
// not pick data, and a device in another mode with any non-empty hold, are
// unhealthy.
#ifndef HAMI_DEVICES_NVIDIA_MIG_DEVICE_STATE_HPP
#define HAMI_DEVICES_NVIDIA_MIG_DEVICE_STATE_HPP

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "hami/device.h"
#include "mig_topology.hpp"
#include "mig_types.hpp"

namespace hami::devices::nvidia {

// False when the holds make the device unhealthy (see above).
bool holds_consistent(bool mig_mode, std::span<const hami_str> holds);

class MigDeviceState {
 public:
  // `device.attributes` and `holds` must outlive the state. Throws
  // InvalidInput for attributes nvidia.so did not write; holds must be
  // consistent.
  MigDeviceState(const hami_device& device, std::span<const hami_str> holds);

  // The profile and placement a request of `memory` MiB would take now.
  std::optional<MigChoice> candidate(std::int64_t memory) const;
  void take(const MigPlacement& placement) { occupied_.push_back(placement); }
  // Forgets the picks (NUMA restart, or replaying the final picks).
  void drop_picks() { occupied_.resize(held_); }
  // How many instances this device could ever host: one per placement.
  std::size_t placement_count() const noexcept { return placement_count_; }

 private:
  std::vector<MigProfile> profiles_;
  std::vector<MigPlacement> occupied_;  // holds first, then this fit's picks
  std::size_t held_ = 0;
  std::size_t placement_count_ = 0;
};

}  // namespace hami::devices::nvidia

#endif  // HAMI_DEVICES_NVIDIA_MIG_DEVICE_STATE_HPP
