// The MIG instances a pod's allocation holds, for the info metrics the host
// exports (describe's partition_metrics, describe_partitions):
//   0: hami_node_gpu_mig_instance_info {mig_uuid, profile, gpu_instance_id,
//      compute_instance_id, placement_start, placement_size}
//   1: nodeGPUMigInstance {migname = profile "-" gpu_instance_id} (legacy)
// after the host's node, device_uuid and device_index labels. One partition
// per hami.io/vgpu-mig-allocations entry whose runtime identity (migUUID,
// gpuInstanceID, computeInstanceID) is complete; device_id = gpuUUID. Only
// the JSON shape is checked, not the scheduler's completeness rules. The
// host attaches each partition to the device with that id on the pod's
// node; it knows nothing of MIG.
#ifndef HAMI_DEVICES_NVIDIA_MIG_PARTITIONS_HPP
#define HAMI_DEVICES_NVIDIA_MIG_PARTITIONS_HPP

#include <array>
#include <string_view>

#include "hami/device.h"

namespace hami::devices::nvidia {

namespace detail {
constexpr hami_str lit(std::string_view s) noexcept {
  return hami_str{s.data(), s.size()};
}
inline constexpr std::array<hami_str, 6> kMigInstanceLabels{
    lit("mig_uuid"),        lit("profile"),
    lit("gpu_instance_id"), lit("compute_instance_id"),
    lit("placement_start"), lit("placement_size")};
inline constexpr std::array<hami_str, 1> kLegacyMigLabels{lit("migname")};
}  // namespace detail

inline constexpr std::size_t kMigInstanceFamily = 0;
inline constexpr std::size_t kLegacyMigFamily = 1;

inline constexpr std::array<hami_metric_family, 2> kMigPartitionFamilies{
    hami_metric_family{detail::lit("hami_node_gpu_mig_instance_info"),
                       detail::lit("Realized MIG instance identity and scheduler placement"),
                       detail::kMigInstanceLabels.data(), detail::kMigInstanceLabels.size(), 0},
    hami_metric_family{detail::lit("nodeGPUMigInstance"),
                       detail::lit("GPU Sharing mode. 0 for hami-core, 1 for mig, 2 for mps"),
                       detail::kLegacyMigLabels.data(), detail::kLegacyMigLabels.size(), 1}};

// Reports the partitions of the annotation value `mig`. Throws InvalidInput
// when it is not a JSON array of allocation objects.
void emit_mig_partitions(std::string_view mig, const hami_partition_sink& out);

}  // namespace hami::devices::nvidia

#endif  // HAMI_DEVICES_NVIDIA_MIG_PARTITIONS_HPP
