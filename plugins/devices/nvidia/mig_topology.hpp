// MIG profile and placement choice (HAMi mig_topology.go and
// selectMigCandidate in device.go).
//
// Placements are tried high-start-first for "1g.*" and "3g.*" profiles and
// low-start-first otherwise (balanced packing); a placement is free when it
// overlaps no occupied one ([start, start + size) intervals intersect). A
// request of `memory` MiB takes the first profile, ordered by memoryMB and
// then slice count, with memoryMB >= memory and a free placement.
#ifndef HAMI_DEVICES_NVIDIA_MIG_TOPOLOGY_HPP
#define HAMI_DEVICES_NVIDIA_MIG_TOPOLOGY_HPP

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "mig_types.hpp"

namespace hami::devices::nvidia {

bool placements_overlap(const MigPlacement& a, const MigPlacement& b) noexcept;

// HAMi's orderedMigPlacements: a stable sort by start, descending for
// 1g./3g. profiles.
std::vector<MigPlacement> ordered_placements(std::string_view profile,
                                             std::span<const MigPlacement> placements);

// HAMi's selectMigPlacement: the first free placement of the first profile
// named `profile`.
std::optional<MigPlacement> select_placement(std::span<const MigProfile> profiles,
                                             std::span<const MigPlacement> occupied,
                                             std::string_view profile);

struct MigChoice {
  const MigProfile* profile = nullptr;  // points into the profiles given
  MigPlacement placement;
};

// HAMi's selectMigCandidate.
std::optional<MigChoice> select_candidate(std::span<const MigProfile> profiles,
                                          std::span<const MigPlacement> occupied,
                                          std::int64_t memory);

}  // namespace hami::devices::nvidia

#endif  // HAMI_DEVICES_NVIDIA_MIG_TOPOLOGY_HPP
