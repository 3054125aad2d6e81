// The dsmlu profile of an allocation (HAMi PatchAnnotations):
// "<index>_<cores>_<memory / 256>" of the first device of the first
// container that has MLUs, with the device's registered index and the
// pick's cores and MiB (integer division by 256, as HAMi's int32 division).
// HAMi §4.9c kept on purpose: a pod with several MLUs or several MLU
// containers still gets one profile, because the dsmlu node plugin reads
// exactly one.
#ifndef HAMI_DEVICES_CAMBRICON_PROFILE_HPP
#define HAMI_DEVICES_CAMBRICON_PROFILE_HPP

#include <optional>
#include <span>
#include <string>

#include "hami/device.h"

namespace hami::devices::cambricon {

// nullopt when no container has a device.
std::optional<std::string> dsmlu_profile(std::span<const hami_placed_container> containers);

}  // namespace hami::devices::cambricon

#endif  // HAMI_DEVICES_CAMBRICON_PROFILE_HPP
