#include "share_fit.hpp"

#include <algorithm>
#include <cstdint>

#include "card_checks.hpp"
#include "errors.hpp"
#include "fit_input.hpp"
#include "fit_reasons.hpp"
#include "hami/plugin.hpp"
#include "selectors.hpp"

namespace hami::devices {

ShareFitResult share_fit(const ShareFitRules& rules, const hami_fit_input& in,
                         std::span<hami_fit_pick> picks, std::string& reason) {
  const std::size_t need = requested_picks(in, picks);
  if (need == 0)
    return ShareFitResult{true, 0};
  const hami_device_request& req = *in.request;
  const auto [type_sel, uuid_sel] = read_device_selectors(
      in.pod, {rules.use_type_key, rules.nouse_type_key, rules.use_uuid_key, rules.nouse_uuid_key});
  const bool mutex = (in.policy_flags & HAMI_FIT_MUTEX) != 0;
  const std::int32_t cores = rules.checks_memory_and_cores ? std::min(req.cores, 100) : req.cores;
  const hami_str pick_type{rules.pick_type.data(), rules.pick_type.size()};
  const hami_quota_hook* quota =
      rules.checks_quota && in.quota != nullptr && in.quota->allows != nullptr ? in.quota : nullptr;
  std::int64_t picked_memory = 0;
  std::int64_t picked_cores = 0;

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
    if (mutex && u.used > 0) {
      tally.add(FitReason::ExclusiveDeviceAllocateConflict);
      continue;
    }
    std::int64_t memory = 0;
    if (rules.checks_memory_and_cores) {
      memory = req.memory_mib > 0 ? req.memory_mib : d.memory_mib * req.memory_percent / 100;
      if (quota != nullptr &&
          quota->allows(quota->ctx, picked_memory + memory, picked_cores + cores) == 0) {
        tally.add(FitReason::ResourceQuotaNotFit);
        continue;
      }
      if (d.memory_mib - u.used_memory_mib < memory) {
        tally.add(FitReason::CardInsufficientMemory);
        continue;
      }
      if (d.cores - u.used_cores < cores) {
        tally.add(FitReason::CardInsufficientCore);
        continue;
      }
      if (d.cores == 100 && cores == 100 && u.used > 0) {
        tally.add(FitReason::ExclusiveDeviceAllocateConflict);
        continue;
      }
      if (d.cores != 0 && u.used_cores == d.cores && cores == 0) {
        tally.add(FitReason::CardComputeUnitsExhausted);
        continue;
      }
    }
    picks[picked++] = hami_fit_pick{i, pick_type, memory, cores};
    picked_memory += memory;
    picked_cores += cores;
    if (picked == need)
      return ShareFitResult{true, picked};
  }
  if (picked > 0)
    tally.set(FitReason::AllocatedCardsInsufficientRequest, picked);
  reason = tally.render(in.devices_len);
  return ShareFitResult{false, 0};
}

}  // namespace hami::devices
