#include "nvidia_fit.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "errors.hpp"
#include "fit_input.hpp"
#include "fit_reasons.hpp"
#include "hami/device.hpp"
#include "hami/plugin.hpp"
#include "kv_list.hpp"
#include "mig_device_state.hpp"
#include "mig_reservation.hpp"
#include "nvidia_names.hpp"
#include "pair_selection.hpp"
#include "selectors.hpp"

namespace hami::devices::nvidia {
namespace {

struct PodSelectors {
  Selector type;
  Selector uuid;
  std::optional<std::string_view> mode;
  bool numa_bind = false;
};

PodSelectors read_selectors(const hami_pod_view* pod) {
  PodSelectors s;
  if (pod == nullptr)
    return s;
  const auto [type, uuid] =
      read_device_selectors(pod, {kUseType, kNoUseType, kUseUuid, kNoUseUuid});
  s.type = type;
  s.uuid = uuid;
  const KvList annotations(pod->annotations, pod->annotations_len);
  s.mode = annotations.find(kVgpuMode);
  if (const auto numa = annotations.find(kNumaBind))
    s.numa_bind = parse_bool_true(*numa);
  return s;
}

bool is_mig_request(const PodSelectors& sel, const hami_fit_input& in) {
  if (sel.mode && sel.mode->find(kModeMig) == std::string_view::npos)
    return false;
  for (std::size_t i = 0; i < in.devices_len; ++i) {
    const hami_device* d = in.devices[i].device;
    if (d != nullptr && to_sv(d->mode) == kModeMig)
      return true;
  }
  return false;
}

// HAMi's AddResourceUsage for the chosen picks, in pick order: each MIG pick
// takes the profile and placement selectMigCandidate gives for its memory
// request, and its memory and cores become the profile's. False (with
// `reason` set) when a pick finds no placement.
bool assign_mig_instances(const hami_fit_input& in, std::span<hami_fit_pick> picks,
                          std::vector<std::optional<MigDeviceState>>& mig,
                          std::vector<std::string>& pick_data, std::string& reason) {
  pick_data.clear();
  if (mig.empty())
    return true;  // no MIG-mode device was looked at
  pick_data.assign(picks.size(), std::string());
  for (auto& state : mig) {
    if (state)
      state->drop_picks();
  }
  for (std::size_t k = 0; k < picks.size(); ++k) {
    hami_fit_pick& pick = picks[k];
    std::optional<MigDeviceState>& state = mig[pick.device];
    if (!state)
      continue;
    const auto choice = state->candidate(pick.memory_mib);
    if (!choice) {
      reason = "AddResourceUsage failed for device " +
               std::string(to_sv(in.devices[pick.device].device->id)) +
               ": MIG profile and placement allocation failed";
      return false;
    }
    state->take(choice->placement);
    pick.memory_mib = choice->profile->memory_mb;
    pick.cores = choice->profile->core;
    append_reservation(pick_data[k], MigReservation{choice->profile->name, choice->placement});
  }
  return true;
}

}  // namespace

FitResult fit(const hami_fit_input& in, std::span<hami_fit_pick> picks, std::string& reason,
              std::vector<std::string>* pick_data) {
  const std::size_t need = requested_picks(in, picks);
  if (need == 0)
    return FitResult{true, 0};
  const hami_device_request& req = *in.request;
  for (std::size_t i = 0; i < in.devices_len; ++i) {
    if (in.devices[i].device == nullptr)
      throw InvalidInput("fit: device " + std::to_string(i) + " is null");
  }
  const PodSelectors sel = read_selectors(in.pod);
  // A 1.1 host (one that records pick data) leaves the device count to a
  // MULTI_PICK vendor (HAMI-HOST-10); a 1.0 host checks it itself. HAMi
  // skips it for MIG requests only (fitInDevices).
  if (pick_data != nullptr && need > in.devices_len && !is_mig_request(sel, in)) {
    reason = "NodeInsufficientDevice";
    return FitResult{false, 0};
  }
  const bool topology = (in.policy_flags & HAMI_FIT_TOPOLOGY_AWARE) != 0;
  const bool mutex = (in.policy_flags & HAMI_FIT_MUTEX) != 0;
  const std::int32_t cores = std::min<std::int32_t>(req.cores, 100);
  const hami_quota_hook* quota =
      in.quota != nullptr && in.quota->allows != nullptr ? in.quota : nullptr;

  ReasonTally tally;
  std::vector<hami_fit_pick> pool;  // topology-aware candidates
  std::size_t picked = 0;
  std::optional<std::int32_t> prev_numa;
  std::int64_t picked_memory = 0;
  std::int64_t picked_cores = 0;
  // MIG-mode devices seen so far, by device index (empty until the first).
  std::vector<std::optional<MigDeviceState>> mig;
  const auto drop_picks = [&] {
    for (auto& state : mig) {
      if (state)
        state->drop_picks();
    }
  };
  const auto succeed = [&](std::size_t n) {
    const std::span<hami_fit_pick> chosen = picks.first(n);
    std::vector<std::string> scratch;
    if (!assign_mig_instances(in, chosen, mig, pick_data ? *pick_data : scratch, reason))
      return FitResult{false, 0};
    return FitResult{true, n};
  };

  for (std::size_t i = 0; i < in.devices_len; ++i) {
    const hami_device_usage& u = in.devices[i];
    const hami_device& d = *u.device;
    const std::string_view mode = d.mode.len == 0 ? kModeHamiCore : to_sv(d.mode);
    const bool is_mig = mode == kModeMig;
    // Without a place for pick data (a 1.0 host) MIG reservations cannot be
    // kept, so MIG devices fail closed.
    if ((d.flags & HAMI_DEVICE_HEALTHY) == 0 || (is_mig && pick_data == nullptr) ||
        !holds_consistent(is_mig, device_holds(in, i))) {
      tally.add(FitReason::CardNotHealth);
      continue;
    }
    if ((d.flags & HAMI_DEVICE_CORDONED) != 0) {
      tally.add(FitReason::CardCordoned);
      continue;
    }
    if (!type_allowed(sel.type, to_sv(d.type)) ||
        (sel.mode && sel.mode->find(mode) == std::string_view::npos)) {
      tally.add(FitReason::CardTypeMismatch);
      continue;
    }
    if (sel.numa_bind && prev_numa != d.numa) {
      const std::size_t dropped = topology ? pool.size() : picked;
      if (dropped > 0)
        tally.add(FitReason::NumaNotFit, dropped);
      pool.clear();
      picked = 0;
      picked_memory = 0;
      picked_cores = 0;
      drop_picks();
      prev_numa = d.numa;
    }
    if (!uuid_allowed(sel.uuid, to_sv(d.id))) {
      tally.add(FitReason::CardUuidMismatch);
      continue;
    }
    if (is_mig && mig.empty())
      mig.resize(in.devices_len);
    if (is_mig && !mig[i])
      mig[i].emplace(d, device_holds(in, i));
    // A MIG device is visited again after each pick (HAMi's `i++`), so one
    // container can take several instances of one GPU; every visit runs the
    // remaining checks again. HAMi stops only when a check fails; the
    // device's placement count bounds the visits here as well.
    const std::size_t max_visits = is_mig ? mig[i]->placement_count() + 1 : 1;
    for (std::size_t visit = 0; visit < max_visits; ++visit) {
      if (d.count <= u.used) {
        tally.add(FitReason::CardTimeSlicingExhausted);
        break;
      }
      if (mutex && u.used != 0) {
        tally.add(FitReason::ExclusiveDeviceAllocateConflict);
        break;
      }
      std::int64_t memory = 0;
      if (req.memory_mib > 0) {
        memory = req.memory_mib;
      } else if (req.memory_percent > 0) {
        memory = d.memory_mib * req.memory_percent / 100;
      }
      if (quota != nullptr &&
          quota->allows(quota->ctx, picked_memory + memory, picked_cores + cores) == 0) {
        tally.add(FitReason::ResourceQuotaNotFit);
        break;
      }
      if (d.memory_mib - u.used_memory_mib < memory) {
        tally.add(FitReason::CardInsufficientMemory);
        break;
      }
      if (d.cores - u.used_cores < cores) {
        tally.add(FitReason::CardInsufficientCore);
        break;
      }
      if (d.cores == 100 && cores == 100 && u.used > 0) {
        tally.add(FitReason::ExclusiveDeviceAllocateConflict);
        break;
      }
      if (d.cores != 0 && u.used_cores == d.cores && cores == 0) {
        tally.add(FitReason::CardComputeUnitsExhausted);
        break;
      }
      if (is_mig) {
        // CustomFilterRule: a profile with memoryMB >= the resolved request
        // and a placement free of the holds and this container's picks.
        const auto choice = mig[i]->candidate(memory);
        if (!choice) {
          tally.add(FitReason::CardMigTopologyInfeasible);
          break;
        }
        mig[i]->take(choice->placement);
      }
      // memory_mib is the resolved request until assign_mig_instances.
      const hami_fit_pick pick{i, hs(kVendor), memory, cores};
      picked_memory += memory;
      picked_cores += cores;
      if (topology) {
        pool.push_back(pick);
      } else {
        picks[picked++] = pick;
        if (picked == need)
          return succeed(picked);
      }
      if (!is_mig)
        break;
    }
  }

  if (topology) {
    if (pool.size() >= need) {
      std::vector<std::size_t> chosen;
      if (pool.size() == need) {
        for (std::size_t k = 0; k < need; ++k)
          chosen.push_back(k);
      } else {
        std::vector<std::string_view> ids;
        ids.reserve(pool.size());
        for (const auto& p : pool)
          ids.push_back(to_sv(in.devices[p.device].device->id));
        const PairMatrix scores(ids, std::span(in.pair_scores, in.pair_scores_len));
        chosen = need == 1 ? std::vector<std::size_t>{least_connected(scores)}
                           : best_connected(scores, need, kMaxCombinations);
      }
      for (std::size_t k = 0; k < need; ++k)
        picks[k] = pool[chosen[k]];
      return succeed(need);
    }
    picked = pool.size();
  }
  if (picked > 0)
    tally.set(FitReason::AllocatedCardsInsufficientRequest, picked);
  reason = tally.render(in.devices_len);
  return FitResult{false, 0};
}

}  // namespace hami::devices::nvidia
