// The first checks of HAMi's per-card fit loop, the same for every vendor
// that runs it (S-FIT steps 1-5): health, cordon, type and UUID selectors,
// then a free time-slice.
#ifndef HAMI_DEVICES_COMMON_CARD_CHECKS_HPP
#define HAMI_DEVICES_COMMON_CARD_CHECKS_HPP

#include <optional>

#include "fit_reasons.hpp"
#include "hami/device.h"
#include "selectors.hpp"

namespace hami::devices {

// Why card `u` (whose device is `d`) cannot take the pick, in HAMi's order;
// nullopt when it passes these checks.
std::optional<FitReason> card_refusal(const hami_device& d, const hami_device_usage& u,
                                      const Selector& type_sel, const Selector& uuid_sel) noexcept;

}  // namespace hami::devices

#endif  // HAMI_DEVICES_COMMON_CARD_CHECKS_HPP
