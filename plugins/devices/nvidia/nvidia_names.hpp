// Annotation keys and words of HAMi's NVIDIA protocol (§2.7, §3, §4.1).
#ifndef HAMI_DEVICES_NVIDIA_NAMES_HPP
#define HAMI_DEVICES_NVIDIA_NAMES_HPP

#include <string_view>

namespace hami::devices::nvidia {

inline constexpr std::string_view kVendor = "NVIDIA";  // also the allocation TYPE
inline constexpr std::string_view kRegisterAnnotation = "hami.io/node-nvidia-register";
inline constexpr std::string_view kPairScoreAnnotation = "hami.io/node-nvidia-score";
inline constexpr std::string_view kHandshakeAnnotation = "hami.io/node-handshake";
inline constexpr std::string_view kCordonAnnotation = "hami.io/device-cordon";
inline constexpr std::string_view kToAllocateAnnotation = "hami.io/vgpu-devices-to-allocate";
inline constexpr std::string_view kAllocatedAnnotation = "hami.io/vgpu-devices-allocated";

inline constexpr std::string_view kUseType = "nvidia.com/use-gputype";
inline constexpr std::string_view kNoUseType = "nvidia.com/nouse-gputype";
inline constexpr std::string_view kUseUuid = "nvidia.com/use-gpuuuid";
inline constexpr std::string_view kNoUseUuid = "nvidia.com/nouse-gpuuuid";
inline constexpr std::string_view kNumaBind = "nvidia.com/numa-bind";
inline constexpr std::string_view kVgpuMode = "nvidia.com/vgpu-mode";

inline constexpr std::string_view kModeHamiCore = "hami-core";
inline constexpr std::string_view kModeMig = "mig";

}  // namespace hami::devices::nvidia

#endif  // HAMI_DEVICES_NVIDIA_NAMES_HPP
