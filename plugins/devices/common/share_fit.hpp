// HAMi's standard share-fit (S-FIT), which the Hygon, Iluvatar, Cambricon and
// (trimmed) Biren rules copy. Devices arrive in try order (index 0 first, HAMi's walk
// from the end of its sorted list). Per device, the first failing check is
// its reason:
//   1  not healthy                               CardNotHealth
//   –  cordoned (hami.io/device-cordon)          CardCordoned
//   2  type selector (when the vendor has one)   CardTypeMismatch
//   3  UUID selector                             CardUuidMismatch
//   4  count <= used                             CardTimeSlicingExhausted
//   5  mutex policy and used > 0                 ExclusiveDeviceAllocateConflict
// and, unless the vendor shares by count only (Biren):
//   –  cores above 100 are taken as 100
//   –  memory: the request's MiB, else total × percent / 100
//   6  (vendors with checks_quota, HAMi Cambricon) the pod's namespace quota
//      refuses this container's picks so far plus this device
//                                                ResourceQuotaNotFit
//   7  free memory < memory                      CardInsufficientMemory
//   8  free cores < cores                        CardInsufficientCore
//   9  cores 100 on a used 100-core device       ExclusiveDeviceAllocateConflict
//   10 cores 0 on a device whose cores are used up CardComputeUnitsExhausted
// A walk that ends short with picks sets AllocatedCardsInsufficientRequest to
// the number picked. Reason counts are over all devices handed in.
#ifndef HAMI_DEVICES_COMMON_SHARE_FIT_HPP
#define HAMI_DEVICES_COMMON_SHARE_FIT_HPP

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "hami/device.h"

namespace hami::devices {

struct ShareFitRules {
  // The pick type written into the allocation (HAMi: the request's type,
  // i.e. the vendor word).
  std::string_view pick_type;
  // Pod annotation keys of the selectors; an empty key is never present.
  std::string_view use_type_key;
  std::string_view nouse_type_key;
  std::string_view use_uuid_key;
  std::string_view nouse_uuid_key;
  // false: S-FIT steps 1–5 only; picks take no memory and the request's cores.
  bool checks_memory_and_cores = true;
  // true: step 6 asks hami_fit_input.quota (when the host passes one) with
  // the memory and cores of this container's picks so far plus the
  // candidate's. Only with checks_memory_and_cores.
  bool checks_quota = false;
};

struct ShareFitResult {
  bool fits = false;
  std::size_t picks_len = 0;
};

// Throws InvalidInput on inconsistent input (null request or devices, picks
// smaller than the count).
ShareFitResult share_fit(const ShareFitRules& rules, const hami_fit_input& in,
                         std::span<hami_fit_pick> picks, std::string& reason);

}  // namespace hami::devices

#endif  // HAMI_DEVICES_COMMON_SHARE_FIT_HPP
