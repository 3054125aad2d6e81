// The pod annotation hami.io/vgpu-mig-allocations (HAMi §4.3,
// mig_allocations.go): a JSON array, one entry per MIG device chosen,
//
//   [{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-a","profile":"1g.5gb",
//     "placement":{"start":6,"size":1}}]
//
// containerIndex counts the pod's allocation segments (init containers
// first), deviceIndex the device's position in that segment. The node's
// device plugin adds migUUID, gpuInstanceID and computeInstanceID once the
// instance exists.
//
// Encoding is Go's json.Marshal byte for byte (field order, HTML-safe string
// escapes). Decoding reads as Go's json.Unmarshal into []MigAllocation does:
// keys case-insensitively, unknown keys ignored, a repeated key's last value
// kept, integers only where Go has integer fields, null leaving the zero
// value (and clearing gpuInstanceID / computeInstanceID).
#ifndef HAMI_DEVICES_NVIDIA_MIG_ALLOCATIONS_HPP
#define HAMI_DEVICES_NVIDIA_MIG_ALLOCATIONS_HPP

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mig_types.hpp"

namespace hami::devices::nvidia {

inline constexpr std::string_view kMigAllocationsAnnotation = "hami.io/vgpu-mig-allocations";

struct MigAllocation {
  std::int64_t container_index = 0;
  std::int64_t device_index = 0;
  std::string gpu_uuid;
  std::string profile;
  MigPlacement placement;
  std::string mig_uuid;
  std::optional<std::uint32_t> gpu_instance_id;
  std::optional<std::uint32_t> compute_instance_id;

  // migUUID, gpuInstanceID and computeInstanceID are all present.
  bool runtime_ready() const noexcept {
    return !mig_uuid.empty() && gpu_instance_id.has_value() && compute_instance_id.has_value();
  }
};

enum class MigAllocationCheck {
  // DecodeMigAllocations: every entry complete (indexes >= 0, gpuUUID and
  // profile set, size > 0), runtime identity all or nothing, no two entries
  // for one (containerIndex, deviceIndex).
  Strict,
  // Only the JSON shape and types (what the metrics reader needs).
  ShapeOnly,
};

// The entries, in annotation order; "" and "null" are none. Throws
// InvalidInput naming the problem.
std::vector<MigAllocation> decode_mig_allocations(std::string_view text, MigAllocationCheck check);

// EncodeMigAllocations' json.Marshal of the entries; runtime identity is
// written only when set (omitempty).
std::string encode_mig_allocations(std::span<const MigAllocation> entries);

}  // namespace hami::devices::nvidia

#endif  // HAMI_DEVICES_NVIDIA_MIG_ALLOCATIONS_HPP
