#include "card_checks.hpp"

#include "hami/device.hpp"

namespace hami::devices {

std::optional<FitReason> card_refusal(const hami_device& d, const hami_device_usage& u,
                                      const Selector& type_sel, const Selector& uuid_sel) noexcept {
  if ((d.flags & HAMI_DEVICE_HEALTHY) == 0)
    return FitReason::CardNotHealth;
  if ((d.flags & HAMI_DEVICE_CORDONED) != 0)
    return FitReason::CardCordoned;
  if (!type_allowed(type_sel, to_sv(d.type)))
    return FitReason::CardTypeMismatch;
  if (!uuid_allowed(uuid_sel, to_sv(d.id)))
    return FitReason::CardUuidMismatch;
  if (d.count <= u.used)
    return FitReason::CardTimeSlicingExhausted;
  return std::nullopt;
}

}  // namespace hami::devices
