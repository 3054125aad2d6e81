// Annotation keys and words of HAMi's Vastai protocol
// (pkg/device/vastai/device.go).
#ifndef HAMI_DEVICES_VASTAI_NAMES_HPP
#define HAMI_DEVICES_VASTAI_NAMES_HPP

#include <string_view>

namespace hami::devices::vastai {

inline constexpr std::string_view kVendor = "Vastai";
inline constexpr std::string_view kRegisterAnnotation = "hami.io/node-va-register";
inline constexpr std::string_view kHandshakeAnnotation = "hami.io/node-handshake-va";
inline constexpr std::string_view kCordonAnnotation = "hami.io/device-cordon";
inline constexpr std::string_view kToAllocateAnnotation = "hami.io/Vastai-devices-to-allocate";
inline constexpr std::string_view kAllocatedAnnotation = "hami.io/Vastai-devices-allocated";

inline constexpr std::string_view kUseUuid = "vastaitech.com/use-gpuuuid";
inline constexpr std::string_view kNoUseUuid = "vastaitech.com/nouse-gpuuuid";

// The members of a device's `custominfo` that die mode reads, and the
// strategy that makes a device one die of a card.
inline constexpr std::string_view kStrategyKey = "DeviceStrategy";
inline constexpr std::string_view kAicKey = "AIC";
inline constexpr std::string_view kDieStrategy = "die";

}  // namespace hami::devices::vastai

#endif  // HAMI_DEVICES_VASTAI_NAMES_HPP
