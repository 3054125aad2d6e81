#include "amd_fit.hpp"

#include <algorithm>
#include <cstdint>

#include "amd_names.hpp"
#include "card_checks.hpp"
#include "errors.hpp"
#include "fit_input.hpp"
#include "fit_reasons.hpp"
#include "hami/plugin.hpp"
#include "selectors.hpp"

namespace hami::devices::amd {

FitResult fit(const hami_fit_input& in, std::span<hami_fit_pick> picks, std::string& reason) {
  const std::size_t need = requested_picks(in, picks);
  if (need == 0)
    return FitResult{true, 0};
  const hami_device_request& req = *in.request;
  const auto [type_sel, uuid_sel] =
      read_device_selectors(in.pod, {kUseType, kNoUseType, kUseUuid, kNoUseUuid});
  const bool mutex = (in.policy_flags & HAMI_FIT_MUTEX) != 0;

  ReasonTally tally;
  std::size_t picked = 0;
  for (std::size_t i = 0; i < in.devices_len; ++i) {
    const hami_device_usage& u = in.devices[i];
    if (u.device == nullptr)
      throw InvalidInput("fit: device " + std::to_string(i) + " is null");
    const hami_device& d = *u.device;
    if (const auto refusal = card_refusal(d, u, type_sel, uuid_sel)) {
      tally.add(*refusal);
      continue;
    }
    if (mutex && u.used != 0) {
      tally.add(FitReason::ExclusiveDeviceAllocateConflict);
      continue;
    }
    const std::int64_t memory = req.memory_mib > 0 ? req.memory_mib : d.memory_mib;
    std::int32_t cores = 0;
    if (d.cores > 0) {
      if (req.cores == 0 && memory == d.memory_mib) {
        cores = d.cores;
      } else {
        const std::int64_t share = static_cast<std::int64_t>(d.cores) * req.cores / 100;
        cores = static_cast<std::int32_t>(std::clamp<std::int64_t>(share, 1, d.cores));
      }
    }
    if (d.memory_mib - u.used_memory_mib < memory) {
      tally.add(FitReason::CardInsufficientMemory);
      continue;
    }
    if (d.cores - u.used_cores < cores) {
      tally.add(FitReason::CardInsufficientCore);
      continue;
    }
    picks[picked++] = hami_fit_pick{i, d.type, memory, cores};
    if (picked == need)
      return FitResult{true, picked};
  }
  if (picked > 0)
    tally.set(FitReason::AllocatedCardsInsufficientRequest, picked);
  reason = tally.render(in.devices_len);
  return FitResult{false, 0};
}

}  // namespace hami::devices::amd
