// What every vendor's fit does first with its input: the checks of the
// host's call (a request, devices, room for the picks) and the pod's device
// selectors.
#ifndef HAMI_DEVICES_COMMON_FIT_INPUT_HPP
#define HAMI_DEVICES_COMMON_FIT_INPUT_HPP

#include <cstddef>
#include <span>
#include <string_view>

#include "hami/device.h"
#include "selectors.hpp"

namespace hami::devices {

// The devices the request asks for; 0: no request (count <= 0). Throws
// InvalidInput when the request or the devices are NULL, or `picks` has
// less room than the count.
std::size_t requested_picks(const hami_fit_input& in, std::span<const hami_fit_pick> picks);

// The pod annotation keys of a vendor's selectors.
struct SelectorKeys {
  std::string_view use_type;
  std::string_view nouse_type;
  std::string_view use_uuid;
  std::string_view nouse_uuid;
};

struct DeviceSelectors {
  Selector type;
  Selector uuid;
};

// The selectors `pod` sets (none for a NULL pod).
DeviceSelectors read_device_selectors(const hami_pod_view* pod, const SelectorKeys& keys);

}  // namespace hami::devices

#endif  // HAMI_DEVICES_COMMON_FIT_INPUT_HPP
