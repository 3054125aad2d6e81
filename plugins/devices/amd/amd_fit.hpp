// AMD Fit (HAMi §5.6). Devices arrive in try order (index 0 first). Per
// device, the first failing check is its reason:
//   CardNotHealth → CardCordoned → CardTypeMismatch (amd.com/use-gputype,
//   nouse-gputype) → CardUuidMismatch (amd.com/use-gpu-uuid,
//   nouse-gpu-uuid) → CardTimeSlicingExhausted → [mutex policy]
//   ExclusiveDeviceAllocateConflict → CardInsufficientMemory →
//   CardInsufficientCore.
// Memory is the request's MiB, or the whole card's memory when 0. Cores are
// a CU count: floor(device CUs × percent / 100) clamped to [1, CUs]; a
// whole-card request without a percentage takes every CU. Picks carry the
// device's own product type ("AMD Instinct MI300X VF"), as HAMi writes it.
//
// Cordon is honoured for AMD too (HAMi v2.10 reads hami.io/device-cordon only
// for NVIDIA); the annotation names UUIDs and means "no new allocations"
// whatever the vendor. There is no quota check inside AMD Fit (as in HAMi;
// admission still applies the namespace quota).
#ifndef HAMI_DEVICES_AMD_FIT_HPP
#define HAMI_DEVICES_AMD_FIT_HPP

#include <cstddef>
#include <span>
#include <string>

#include "hami/device.h"

namespace hami::devices::amd {

struct FitResult {
  bool fits = false;
  std::size_t picks_len = 0;
};

FitResult fit(const hami_fit_input& in, std::span<hami_fit_pick> picks, std::string& reason);

}  // namespace hami::devices::amd

#endif  // HAMI_DEVICES_AMD_FIT_HPP
