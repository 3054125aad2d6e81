// NVIDIA Fit (HAMi §5.5): places one container's request on one node.
//
// Devices arrive in the order the scheduling policy wants them TRIED (index
// 0 first); HAMi walks its sorted list from the end, the policy plugin has
// already reversed that. Per device, in HAMi's order, the first failing
// check is counted as the device's reason:
//   CardNotHealth → CardCordoned → CardTypeMismatch (use/nouse-gputype,
//   nvidia.com/vgpu-mode) → [numa-bind: a NUMA change drops the picks made so
//   far, counted as NumaNotFit] → CardUuidMismatch → CardTimeSlicingExhausted
//   → [mutex policy] ExclusiveDeviceAllocateConflict → ResourceQuotaNotFit →
//   CardInsufficientMemory → CardInsufficientCore →
//   ExclusiveDeviceAllocateConflict (cores 100 on a used card) →
//   CardComputeUnitsExhausted (0 cores on a saturated card) →
//   CardMigModeUnsupported.
// Cores above 100 are clamped to 100. Memory is the request's MiB, or the
// percentage of the device's memory.
//
// MIG: devices in mode "mig" are not chosen yet; after passing every other
// check they fail with CardMigModeUnsupported (HAMi would try a MIG profile
// there and report CardMigTopologyInfeasible).
//
// Without topology-aware the first `count` passing devices are taken. With
// it, every passing device is a candidate: exactly `count` → taken; more →
// for one card the candidate with the lowest sum of pair scores to the other
// candidates (keeps well-connected sets free), for N cards the N-combination
// with the highest sum of pairwise scores (ties: the earliest in try order).
// Above kMaxCombinations combinations a greedy choice replaces enumeration.
//
// On failure the reason is HAMi's text, e.g. "1/4 CardInsufficientCore,
// 3/4 CardInsufficientMemory", with AllocatedCardsInsufficientRequest = the
// number of devices that did pass.
#ifndef HAMI_DEVICES_NVIDIA_FIT_HPP
#define HAMI_DEVICES_NVIDIA_FIT_HPP

#include <cstddef>
#include <span>
#include <string>

#include "hami/device.h"

namespace hami::devices::nvidia {

inline constexpr std::size_t kMaxCombinations = 200000;

struct FitResult {
  bool fits = false;
  std::size_t picks_len = 0;
};

// `picks` must hold at least request->count entries. On failure `reason`
// receives the failure text. Throws InvalidInput for inconsistent input.
FitResult fit(const hami_fit_input& in, std::span<hami_fit_pick> picks, std::string& reason);

}  // namespace hami::devices::nvidia

#endif  // HAMI_DEVICES_NVIDIA_FIT_HPP
