// Moving between a placement (what fit chose), the allocation annotations
// (what the node-side device plugin reads) and a ledger charge.
//
// Annotations, per vendor the pod asks for: `<vendor to-allocate>` and
// `<vendor allocated>` carry the same pod-device string, one segment per
// container, init containers first, empty segments included (HAMi bug
// 7.7#1 dropped them).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cluster/cluster_state.hpp"
#include "plugins/device_plugin_handle.hpp"
#include "scheduling/node_fit.hpp"
#include "scheduling/pod_charge.hpp"
#include "scheduling/pod_requests.hpp"

namespace hami::scheduling {

inline constexpr std::string_view kAssignedNodeAnnotation = "hami.io/vgpu-node";
inline constexpr std::string_view kAssignedTimeAnnotation = "hami.io/vgpu-time";
inline constexpr std::string_view kBindPhaseAnnotation = "hami.io/bind-phase";
inline constexpr std::string_view kBindTimeAnnotation = "hami.io/bind-time";

// Per vendor the pod asks for, the devices each container takes.
std::vector<VendorAllocation> allocations_from_fit(
    std::span<const host::DevicePluginHandle> plugins, const NodeFit& fit,
    const PodRequests& requests);

// The allocation annotations of every vendor in `allocations`: to-allocate
// and allocated, encoded by the vendor's plugin, then the further
// annotations its annotate_allocation names for `pod` on `node`
// (HAMI-HOST-11).
std::vector<cluster::MetadataWrite> allocation_annotations(
    std::span<const host::DevicePluginHandle> plugins,
    const std::vector<VendorAllocation>& allocations, const hami_pod_view& pod,
    std::string_view node, int64_t now);

// The node an allocation is on, added to `patch`: the hami.io/vgpu-node
// and hami.io/vgpu-time (`time`) annotations, and the hami.io/vgpu-node
// label when the node name is a valid label value (k8s/label_value.hpp).
// A longer name (over 63 characters) would make the API server refuse the
// whole write; the annotation is what the node-side plugin reads.
void add_assigned_node(cluster::PodMetadataPatch& patch, std::string_view node,
                       std::string_view time);

// Removes every vendor's allocation annotations (the further ones
// included) and the assigned node.
cluster::PodMetadataPatch allocation_removal(std::span<const host::DevicePluginHandle> plugins);

// The allocations a pod's annotations record: per vendor, what its
// decode_pod_allocation reports, else `allocated`, or `to-allocate` when
// only that one is present. nullopt when the pod names
// no node (hami.io/vgpu-node) or carries no allocation; `error` is set when
// an annotation does not decode (the pod is then not counted, as in HAMi).
std::optional<std::vector<VendorAllocation>> allocations_from_pod(
    std::span<const host::DevicePluginHandle> plugins, const cluster::PodRecord& pod,
    std::string& error);

}  // namespace hami::scheduling
