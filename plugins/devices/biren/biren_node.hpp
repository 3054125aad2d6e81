// Biren node registration (HAMi GetNodeDevices): `hami.io/node-biren-register`
// holds HAMi's JSON device array; every device's cores are taken as 100 (HAMi
// forces Devcore to 100), and an array without devices is
// "no gpu found on node".
// HAMi §3.9a fixed: in raw-device mode the Biren node plugin registers the
// card's name as the type; a name that does not contain "Biren" (any case)
// is reported as "Biren <name>", so requests still see the device (HAMi
// never schedules on it). Allocations carry the vendor word as the type
// either way, so the node plugin reads the same annotation.
#ifndef HAMI_DEVICES_BIREN_NODE_HPP
#define HAMI_DEVICES_BIREN_NODE_HPP

#include <cstdint>
#include <string>
#include <string_view>

namespace hami::devices::biren {

inline constexpr std::int32_t kDeviceCores = 100;

// The type a registered device is reported with.
std::string reported_type(std::string_view registered_type);

}  // namespace hami::devices::biren

#endif  // HAMI_DEVICES_BIREN_NODE_HPP
