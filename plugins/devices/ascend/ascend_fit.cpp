#include "ascend_fit.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "ascend_admission.hpp"
#include "ascend_attributes.hpp"
#include "ascend_names.hpp"
#include "card_checks.hpp"
#include "errors.hpp"
#include "fit_input.hpp"
#include "fit_reasons.hpp"
#include "hami/plugin.hpp"
#include "kv_list.hpp"

namespace hami::devices::ascend {
namespace {

struct Candidate {
  std::size_t device = 0;  // index into the fit input
  std::int64_t memory = 0;
};

// Candidates grouped by `key`, groups in try order of their first member,
// then stably by size, largest first.
template <class Key>
std::vector<std::vector<Candidate>> largest_groups_first(const std::vector<Candidate>& candidates,
                                                         Key&& key) {
  std::vector<std::int64_t> keys;
  std::vector<std::vector<Candidate>> groups;
  for (const Candidate& c : candidates) {
    const std::int64_t k = key(c);
    const auto it = std::find(keys.begin(), keys.end(), k);
    if (it == keys.end()) {
      keys.push_back(k);
      groups.push_back({c});
    } else {
      groups[static_cast<std::size_t>(it - keys.begin())].push_back(c);
    }
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const auto& a, const auto& b) { return a.size() > b.size(); });
  return groups;
}

// The node runs soft split unless its devices report hard split only.
bool node_supports_soft_split(const hami_fit_input& in) noexcept {
  for (std::size_t i = 0; i < in.devices_len; ++i) {
    const hami_device* d = in.devices[i].device;
    if (d != nullptr && to_sv(d->mode) == kHardSplitMode)
      return false;
  }
  return true;
}

std::optional<double> network_id_of(const hami_fit_input& in, std::size_t i) {
  return decode_network_id(to_sv(in.devices[i].device->attributes));
}

// `tally` rendered over `denominator`, plus an explicit
// "<n>/<denominator> AllocatedCardsInsufficientRequest" even for n = 0 (Go
// sets the map entry whatever its value).
std::string render_with_allocated(const ReasonTally& tally, std::size_t allocated,
                                  std::size_t denominator) {
  ReasonTally t = tally;
  t.set(FitReason::AllocatedCardsInsufficientRequest, 0);
  std::vector<std::string> entries;
  const std::string rest = t.render(denominator);
  std::size_t start = 0;
  while (start < rest.size()) {
    const std::size_t end = rest.find(", ", start);
    entries.push_back(
        rest.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos)
      break;
    start = end + 2;
  }
  entries.push_back(std::to_string(allocated) + "/" + std::to_string(denominator) + " " +
                    std::string(reason_name(FitReason::AllocatedCardsInsufficientRequest)));
  std::sort(entries.begin(), entries.end());
  std::string out;
  for (const std::string& e : entries) {
    if (!out.empty())
      out += ", ";
    out += e;
  }
  return out;
}

}  // namespace

ShareFitResult ascend_fit(const AscendFitRules& rules, const hami_fit_input& in,
                          std::span<hami_fit_pick> picks, std::string& reason) {
  const std::size_t need = requested_picks(in, picks);
  if (need == 0)
    return ShareFitResult{true, 0};
  for (std::size_t i = 0; i < in.devices_len; ++i) {
    if (in.devices[i].device == nullptr)
      throw InvalidInput("fit: device " + std::to_string(i) + " is null");
  }
  const hami_device_request& req = *in.request;
  const bool soft =
      in.pod != nullptr && soft_split(KvList(in.pod->annotations, in.pod->annotations_len));
  if (soft && !node_supports_soft_split(in)) {
    reason = "1/" + std::to_string(in.devices_len) + " ModeNotFit";
    return ShareFitResult{false, 0};
  }
  bool need_topology = rules.network_topology;
  for (std::size_t i = 0; need_topology && i < in.devices_len; ++i)
    need_topology = network_id_of(in, i).has_value();
  const bool pairs = rules.module_pairs && need > 1;
  const bool collect_all = need_topology || pairs;

  const auto [type_sel, uuid_sel] =
      read_device_selectors(in.pod, {{}, {}, rules.use_uuid_key, rules.nouse_uuid_key});
  const bool mutex = (in.policy_flags & HAMI_FIT_MUTEX) != 0;
  const std::int32_t cores = std::min(req.cores, 100);
  const hami_str pick_type{rules.vendor.data(), rules.vendor.size()};
  const auto pick = [&](const Candidate& c) {
    return hami_fit_pick{c.device, pick_type, c.memory, cores};
  };

  ReasonTally tally;
  std::vector<Candidate> candidates;
  for (std::size_t i = 0; i < in.devices_len; ++i) {
    const hami_device_usage& u = in.devices[i];
    const hami_device& d = *u.device;
    if (const auto refusal = card_refusal(d, u, type_sel, uuid_sel)) {
      tally.add(*refusal);
      continue;
    }
    if (mutex && u.used > 0) {
      tally.add(FitReason::ExclusiveDeviceAllocateConflict);
      continue;
    }
    std::int64_t memory = req.memory_mib;
    if (memory <= 0)
      memory = req.memory_percent != 101 ? d.memory_mib * req.memory_percent / 100 : 0;
    if (d.memory_mib - u.used_memory_mib < memory) {
      tally.add(FitReason::CardInsufficientMemory);
      continue;
    }
    const std::int32_t total = soft ? 100 : d.cores;
    if (total - u.used_cores < cores) {
      tally.add(FitReason::CardInsufficientCore);
      continue;
    }
    if (total == 100 && cores == 100 && u.used > 0) {
      tally.add(FitReason::ExclusiveDeviceAllocateConflict);
      continue;
    }
    if (total != 0 && u.used_cores == total && cores == 0) {
      tally.add(FitReason::CardComputeUnitsExhausted);
      continue;
    }
    if (!collect_all) {
      picks[candidates.size()] = pick({i, memory});
      candidates.push_back({i, memory});
      if (candidates.size() == need)
        return ShareFitResult{true, need};
      continue;
    }
    candidates.push_back({i, memory});
  }

  const auto take = [&](const std::vector<Candidate>& chosen) {
    for (std::size_t k = 0; k < chosen.size(); ++k)
      picks[k] = pick(chosen[k]);
    return ShareFitResult{true, chosen.size()};
  };

  if (pairs) {
    std::vector<Candidate> chosen;
    const auto modules = largest_groups_first(candidates, [&](const Candidate& c) {
      return static_cast<std::int64_t>(in.devices[c.device].device->index / 2);
    });
    for (const auto& module : modules) {
      if (chosen.size() >= need)
        break;
      if (module.size() == 2)
        chosen.insert(chosen.end(), module.begin(), module.end());
    }
    if (chosen.size() == need)
      return take(chosen);
    reason = render_with_allocated(tally, chosen.size(), need);
    return ShareFitResult{false, 0};
  }
  if (need_topology && candidates.size() >= need) {
    if (candidates.size() == need)
      return take(candidates);
    if (need == 1)
      return take({candidates.front()});
    std::vector<Candidate> chosen;
    const auto groups = largest_groups_first(candidates, [&](const Candidate& c) {
      return network_group(*network_id_of(in, c.device));
    });
    for (const auto& group : groups) {
      for (const Candidate& c : group) {
        if (chosen.size() < need)
          chosen.push_back(c);
      }
    }
    return take(chosen);
  }
  if (!candidates.empty())
    tally.set(FitReason::AllocatedCardsInsufficientRequest, candidates.size());
  reason = tally.render(in.devices_len);
  return ShareFitResult{false, 0};
}

}  // namespace hami::devices::ascend
