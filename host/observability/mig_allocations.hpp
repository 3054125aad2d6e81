// The pod annotation hami.io/vgpu-mig-allocations (reference hami-v2.10
// §4.3): a JSON array with one entry per MIG device chosen,
//   {"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-…","profile":"1g.10gb",
//    "placement":{"start":6,"size":1},
//    "migUUID":"MIG-…","gpuInstanceID":3,"computeInstanceID":0}
// where the device plugin adds the last three once the instance exists.
// Keys are matched case-insensitively, as Go's decoder does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hami::observability {

inline constexpr std::string_view kMigAllocationsAnnotation = "hami.io/vgpu-mig-allocations";

struct MigAllocation {
  int64_t container_index = 0;
  int64_t device_index = 0;
  std::string gpu_uuid;
  std::string profile;
  int64_t placement_start = 0;
  int64_t placement_size = 0;
  // The runtime identity, all three or none.
  std::optional<std::string> mig_uuid;
  std::optional<int64_t> gpu_instance_id;
  std::optional<int64_t> compute_instance_id;

  bool runtime_ready() const { return mig_uuid && gpu_instance_id && compute_instance_id; }
};

// The entries of the annotation's value; nullopt when it is not a JSON
// array of objects with the fields above of the right types.
std::optional<std::vector<MigAllocation>> parse_mig_allocations(std::string_view json);

}  // namespace hami::observability
