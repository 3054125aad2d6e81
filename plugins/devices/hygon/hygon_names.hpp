// Annotation keys and words of HAMi's Hygon DCU protocol
// (pkg/device/hygon/device.go).
#ifndef HAMI_DEVICES_HYGON_NAMES_HPP
#define HAMI_DEVICES_HYGON_NAMES_HPP

#include <string_view>

namespace hami::devices::hygon {

// The vendor word: the request type, the pick type written into the
// allocation, and the substring device types must contain.
inline constexpr std::string_view kVendor = "DCU";
inline constexpr std::string_view kRegisterAnnotation = "hami.io/node-dcu-register";
inline constexpr std::string_view kHandshakeAnnotation = "hami.io/node-handshake-dcu";
inline constexpr std::string_view kCordonAnnotation = "hami.io/device-cordon";
inline constexpr std::string_view kToAllocateAnnotation = "hami.io/dcu-devices-to-allocate";
inline constexpr std::string_view kAllocatedAnnotation = "hami.io/dcu-devices-allocated";

inline constexpr std::string_view kUseType = "hygon.com/use-dcutype";
inline constexpr std::string_view kNoUseType = "hygon.com/nouse-dcutype";
inline constexpr std::string_view kUseUuid = "hygon.com/use-gpuuuid";
inline constexpr std::string_view kNoUseUuid = "hygon.com/nouse-gpuuuid";

}  // namespace hami::devices::hygon

#endif  // HAMI_DEVICES_HYGON_NAMES_HPP
