// Annotation keys and words of HAMi's Cambricon MLU protocol
// (pkg/device/cambricon/device.go).
#ifndef HAMI_DEVICES_CAMBRICON_NAMES_HPP
#define HAMI_DEVICES_CAMBRICON_NAMES_HPP

#include <cstdint>
#include <string_view>

namespace hami::devices::cambricon {

// The vendor word: the request type, the registered device type, and the
// pick type written into the allocation.
inline constexpr std::string_view kVendor = "MLU";
inline constexpr std::string_view kToAllocateAnnotation =
    "hami.io/cambricon-mlu-devices-to-allocate";
inline constexpr std::string_view kAllocatedAnnotation = "hami.io/cambricon-mlu-devices-allocated";

// Pod annotations the dsmlu node plugin reads: whether it has set the
// container up yet, and "<index>_<vcore>_<vmemory>" of the device.
inline constexpr std::string_view kAssignedAnnotation = "CAMBRICON_DSMLU_ASSIGNED";
inline constexpr std::string_view kProfileAnnotation = "CAMBRICON_DSMLU_PROFILE";

// The vendor's own node lock: an RFC 3339 time, no owner, stale after two
// minutes (HAMi's "node <n> has been locked within 2 minutes").
inline constexpr std::string_view kLockAnnotation = "cambricon.com/dsmlu.lock";
inline constexpr std::int64_t kLockExpirySeconds = 120;

inline constexpr std::string_view kUseUuid = "cambricon.com/use-gpuuuid";
inline constexpr std::string_view kNoUseUuid = "cambricon.com/nouse-gpuuuid";

// Requests and node capacity count memory in units of 256 MiB; the fixed
// factor is also the quota factor (HAMi GetResourceNames().MemoryFactor).
inline constexpr std::int32_t kMemoryFactor = 256;

}  // namespace hami::devices::cambricon

#endif  // HAMI_DEVICES_CAMBRICON_NAMES_HPP
