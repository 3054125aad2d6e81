// Annotation keys and words of HAMi's AMD protocol (§2.7, §3.2, §4.1).
#ifndef HAMI_DEVICES_AMD_NAMES_HPP
#define HAMI_DEVICES_AMD_NAMES_HPP

#include <string_view>

namespace hami::devices::amd {

inline constexpr std::string_view kVendor = "AMD";
inline constexpr std::string_view kRegisterAnnotation = "hami.io/node-amd-register";
inline constexpr std::string_view kCordonAnnotation = "hami.io/device-cordon";
inline constexpr std::string_view kToAllocateAnnotation = "hami.io/amd-devices-to-allocate";
inline constexpr std::string_view kAllocatedAnnotation = "hami.io/amd-devices-allocated";

inline constexpr std::string_view kUseType = "amd.com/use-gputype";
inline constexpr std::string_view kNoUseType = "amd.com/nouse-gputype";
inline constexpr std::string_view kUseUuid = "amd.com/use-gpu-uuid";  // note the dash
inline constexpr std::string_view kNoUseUuid = "amd.com/nouse-gpu-uuid";

}  // namespace hami::devices::amd

#endif  // HAMI_DEVICES_AMD_NAMES_HPP
