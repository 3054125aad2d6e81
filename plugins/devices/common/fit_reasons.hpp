// Why devices were rejected during one fit, rendered as HAMi's failure text:
// one "<count>/<devices> <Reason>" entry per reason seen, entries sorted as
// strings and joined with ", " — e.g.
// "1/4 CardInsufficientCore, 3/4 CardInsufficientMemory". Users, dashboards
// and the extender's event messages key on these exact words.
#ifndef HAMI_DEVICES_COMMON_FIT_REASONS_HPP
#define HAMI_DEVICES_COMMON_FIT_REASONS_HPP

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace hami::devices {

enum class FitReason : unsigned {
  CardNotHealth,
  CardCordoned,
  CardTypeMismatch,
  NumaNotFit,
  CardUuidMismatch,
  CardTimeSlicingExhausted,
  ExclusiveDeviceAllocateConflict,
  ResourceQuotaNotFit,
  CardInsufficientMemory,
  CardInsufficientCore,
  CardComputeUnitsExhausted,
  CardMigTopologyInfeasible,
  AllocatedCardsInsufficientRequest,
  kCount,
};

std::string_view reason_name(FitReason r) noexcept;

class ReasonTally {
 public:
  void add(FitReason r, std::size_t n = 1) noexcept { counts_[static_cast<std::size_t>(r)] += n; }
  void set(FitReason r, std::size_t n) noexcept { counts_[static_cast<std::size_t>(r)] = n; }
  std::size_t count(FitReason r) const noexcept { return counts_[static_cast<std::size_t>(r)]; }
  // The failure text; `devices` is the number of devices the fit looked at.
  std::string render(std::size_t devices) const;

 private:
  std::array<std::size_t, static_cast<std::size_t>(FitReason::kCount)> counts_{};
};

}  // namespace hami::devices

#endif  // HAMI_DEVICES_COMMON_FIT_REASONS_HPP
