// NVIDIA Fit (HAMi §5.5): places one container's request on one node.
//
// Devices arrive in the order the scheduling policy wants them TRIED (index
// 0 first); HAMi walks its sorted list from the end, the policy plugin has
// already reversed that. A request for more devices than offered fails with
// exactly "NodeInsufficientDevice" unless it is a MIG request (HAMi's
// isMIGRequest: no nvidia.com/vgpu-mode, or one containing "mig", and some
// device in mode "mig"); nvidia.so sets HAMI_VENDOR_MULTI_PICK, so a 1.1
// host (one offering set_pick_data) leaves that check here, while a 1.0
// host makes it before calling fit. Per device, in HAMi's order, the first failing
// check is counted as the device's reason:
//   CardNotHealth (also: the holds fail closed, see mig_device_state.hpp) →
//   CardCordoned → CardTypeMismatch (use/nouse-gputype,
//   nvidia.com/vgpu-mode) → [numa-bind: a NUMA change drops the picks made so
//   far, counted as NumaNotFit] → CardUuidMismatch → CardTimeSlicingExhausted
//   → [mutex policy] ExclusiveDeviceAllocateConflict → ResourceQuotaNotFit →
//   CardInsufficientMemory → CardInsufficientCore →
//   ExclusiveDeviceAllocateConflict (cores 100 on a used card) →
//   CardComputeUnitsExhausted (0 cores on a saturated card) →
//   CardMigTopologyInfeasible (MIG mode: no profile with memoryMB >= the
//   request has a placement free of the holds and this container's picks).
// Cores above 100 are clamped to 100. Memory is the request's MiB, or the
// percentage of the device's memory.
//
// MIG: a MIG-mode device is visited again after each pick, so one container
// may take several instances of one GPU (the checks before the MIG rule use
// the usage from before this container, as in HAMi). Once the picks are
// chosen, each MIG pick takes its profile and placement in pick order
// (HAMi's AddResourceUsage): memory_mib and cores become the profile's, and
// `pick_data` receives the reservation (mig_reservation.hpp). The quota hook
// sees the requested memory, as HAMi's fitQuota does.
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
#include <vector>

#include "hami/device.h"

namespace hami::devices::nvidia {

inline constexpr std::size_t kMaxCombinations = 200000;

struct FitResult {
  bool fits = false;
  std::size_t picks_len = 0;
};

// `picks` must hold at least request->count entries. On failure `reason`
// receives the failure text. On success `pick_data` holds one entry per pick
// ("" for devices not in MIG mode). `pick_data` null means the host cannot
// record pick data (ABI 1.0): MIG-mode devices then count as CardNotHealth
// and the device count is left to the host.
// Throws InvalidInput for inconsistent input.
FitResult fit(const hami_fit_input& in, std::span<hami_fit_pick> picks, std::string& reason,
              std::vector<std::string>* pick_data);

}  // namespace hami::devices::nvidia

#endif  // HAMI_DEVICES_NVIDIA_FIT_HPP
