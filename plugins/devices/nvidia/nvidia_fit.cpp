#include "nvidia_fit.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "errors.hpp"
#include "fit_reasons.hpp"
#include "hami/plugin.hpp"
#include "kv_list.hpp"
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
  const KvList annotations(pod->annotations, pod->annotations_len);
  s.type = Selector{annotations.find(kUseType), annotations.find(kNoUseType)};
  s.uuid = Selector{annotations.find(kUseUuid), annotations.find(kNoUseUuid)};
  s.mode = annotations.find(kVgpuMode);
  if (const auto numa = annotations.find(kNumaBind))
    s.numa_bind = parse_bool_true(*numa);
  return s;
}

}  // namespace

FitResult fit(const hami_fit_input& in, std::span<hami_fit_pick> picks, std::string& reason) {
  if (in.request == nullptr)
    throw InvalidInput("fit: request is null");
  if (in.devices_len > 0 && in.devices == nullptr)
    throw InvalidInput("fit: devices is null");
  const hami_device_request& req = *in.request;
  if (req.count <= 0)
    return FitResult{true, 0};
  const auto need = static_cast<std::size_t>(req.count);
  if (picks.size() < need) {
    throw InvalidInput("fit: picks_cap " + std::to_string(picks.size()) +
                       " is smaller than the request count " + std::to_string(need));
  }
  const PodSelectors sel = read_selectors(in.pod);
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

  for (std::size_t i = 0; i < in.devices_len; ++i) {
    const hami_device_usage& u = in.devices[i];
    if (u.device == nullptr)
      throw InvalidInput("fit: device " + std::to_string(i) + " is null");
    const hami_device& d = *u.device;
    if ((d.flags & HAMI_DEVICE_HEALTHY) == 0) {
      tally.add(FitReason::CardNotHealth);
      continue;
    }
    if ((d.flags & HAMI_DEVICE_CORDONED) != 0) {
      tally.add(FitReason::CardCordoned);
      continue;
    }
    const std::string_view mode = d.mode.len == 0 ? kModeHamiCore : to_sv(d.mode);
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
      prev_numa = d.numa;
    }
    if (!uuid_allowed(sel.uuid, to_sv(d.id))) {
      tally.add(FitReason::CardUuidMismatch);
      continue;
    }
    if (d.count <= u.used) {
      tally.add(FitReason::CardTimeSlicingExhausted);
      continue;
    }
    if (mutex && u.used != 0) {
      tally.add(FitReason::ExclusiveDeviceAllocateConflict);
      continue;
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
    if (mode == kModeMig) {
      tally.add(FitReason::CardMigModeUnsupported);
      continue;
    }
    const hami_fit_pick pick{i, hs(kVendor), memory, cores};
    picked_memory += memory;
    picked_cores += cores;
    if (topology) {
      pool.push_back(pick);
      continue;
    }
    picks[picked++] = pick;
    if (picked == need)
      return FitResult{true, picked};
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
      return FitResult{true, need};
    }
    picked = pool.size();
  }
  if (picked > 0)
    tally.set(FitReason::AllocatedCardsInsufficientRequest, picked);
  reason = tally.render(in.devices_len);
  return FitResult{false, 0};
}

}  // namespace hami::devices::nvidia
