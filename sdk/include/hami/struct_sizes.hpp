// hami/struct_sizes.hpp — the ABI 1.0 size of every versioned struct.
//
// A struct received from the other side of the ABI is usable when its
// `struct_size` covers at least the members that existed in 1.0: a peer built
// against 1.0 or any later minor always sends that much (HAMI-HOST-4). The
// size is measured to the end of the last 1.0 member, not sizeof(), so that
// trailing padding never decides compatibility.
//
// When a minor release appends members, these numbers do NOT change: they are
// the floor. Readers of the new members use HAMI_HAS_MEMBER.
#ifndef HAMI_STRUCT_SIZES_HPP
#define HAMI_STRUCT_SIZES_HPP

#include <cstddef>

#include "hami/admission.h"
#include "hami/device.h"
#include "hami/objects.h"
#include "hami/plugin.h"
#include "hami/scheduling.h"

namespace hami {
inline namespace abi_v1 {

// struct_abi<T>::v1_0 is the 1.0 floor of T; struct_abi<T>::name its C name
// for messages. Only the structs listed here carry `struct_size`.
template <class T>
struct struct_abi;

#define HAMI_DETAIL_STRUCT_ABI(type, last)                                         \
  template <>                                                                      \
  struct struct_abi<type> {                                                        \
    static constexpr std::size_t v1_0 = offsetof(type, last) + sizeof(type::last); \
    static constexpr const char* name = #type;                                     \
  }

HAMI_DETAIL_STRUCT_ABI(hami_host_api, now_unix);
HAMI_DETAIL_STRUCT_ABI(hami_host_info, host_version);
HAMI_DETAIL_STRUCT_ABI(hami_plugin_info, vtable);
HAMI_DETAIL_STRUCT_ABI(hami_vtable_header, destroy);

HAMI_DETAIL_STRUCT_ABI(hami_container_view, env_len);
HAMI_DETAIL_STRUCT_ABI(hami_pod_view, init_count);
HAMI_DETAIL_STRUCT_ABI(hami_node_view, capacity_len);

HAMI_DETAIL_STRUCT_ABI(hami_device_description, memory_factor);
HAMI_DETAIL_STRUCT_ABI(hami_device, flags);
HAMI_DETAIL_STRUCT_ABI(hami_device_sink, pair_score);
HAMI_DETAIL_STRUCT_ABI(hami_annotation_sink, remove);
HAMI_DETAIL_STRUCT_ABI(hami_container_mutation_sink, set_runtime_class);
HAMI_DETAIL_STRUCT_ABI(hami_device_request, cores);
HAMI_DETAIL_STRUCT_ABI(hami_device_usage, used_cores);
HAMI_DETAIL_STRUCT_ABI(hami_quota_hook, allows);
HAMI_DETAIL_STRUCT_ABI(hami_fit_input, quota);
HAMI_DETAIL_STRUCT_ABI(hami_fit_output, reason);
HAMI_DETAIL_STRUCT_ABI(hami_alloc_device, cores);
HAMI_DETAIL_STRUCT_ABI(hami_allocation_sink, device);
HAMI_DETAIL_STRUCT_ABI(hami_health_result, needs_update);
HAMI_DETAIL_STRUCT_ABI(hami_device_vtable, decode_allocation);
// Structs that first appeared in 1.1: the floor is their 1.1 size.
HAMI_DETAIL_STRUCT_ABI(hami_placed_sink, device);
HAMI_DETAIL_STRUCT_ABI(hami_partition_sink, partition);
// Structs that first appeared in 1.2.
HAMI_DETAIL_STRUCT_ABI(hami_placement_score_input, containers_len);
HAMI_DETAIL_STRUCT_ABI(hami_placement_score, policy_neutral);

HAMI_DETAIL_STRUCT_ABI(hami_admission_host, namespace_label);
HAMI_DETAIL_STRUCT_ABI(hami_admission_input, host);
HAMI_DETAIL_STRUCT_ABI(hami_admission_output, scheduler_name);
HAMI_DETAIL_STRUCT_ABI(hami_admission_vtable, review);

HAMI_DETAIL_STRUCT_ABI(hami_policy_description, device_policies);
HAMI_DETAIL_STRUCT_ABI(hami_node_usage, total_memory_mib);
HAMI_DETAIL_STRUCT_ABI(hami_order_device, score);
HAMI_DETAIL_STRUCT_ABI(hami_order_input, devices_len);
HAMI_DETAIL_STRUCT_ABI(hami_order_output, fit_flags);
HAMI_DETAIL_STRUCT_ABI(hami_scheduling_vtable, order_devices);

#undef HAMI_DETAIL_STRUCT_ABI

template <class T>
inline constexpr std::size_t v1_0_size = struct_abi<T>::v1_0;

}  // namespace abi_v1
}  // namespace hami

#endif  // HAMI_STRUCT_SIZES_HPP
