// Annotation keys and words of HAMi's Biren protocol
// (pkg/device/biren/device.go).
#ifndef HAMI_DEVICES_BIREN_NAMES_HPP
#define HAMI_DEVICES_BIREN_NAMES_HPP

#include <string_view>

namespace hami::devices::biren {

inline constexpr std::string_view kVendor = "Biren";
inline constexpr std::string_view kRegisterAnnotation = "hami.io/node-biren-register";
inline constexpr std::string_view kHandshakeAnnotation = "hami.io/node-handshake-biren";
inline constexpr std::string_view kCordonAnnotation = "hami.io/device-cordon";
inline constexpr std::string_view kToAllocateAnnotation = "hami.io/Biren-devices-to-allocate";
inline constexpr std::string_view kAllocatedAnnotation = "hami.io/Biren-devices-allocated";

inline constexpr std::string_view kUseUuid = "birentech.com/use-gpuuuid";
inline constexpr std::string_view kNoUseUuid = "birentech.com/nouse-gpuuuid";

}  // namespace hami::devices::biren

#endif  // HAMI_DEVICES_BIREN_NAMES_HPP
