#include "vastai_fit.hpp"

#include <algorithm>

#include "card_checks.hpp"
#include "errors.hpp"
#include "fit_input.hpp"
#include "fit_reasons.hpp"
#include "hami/plugin.hpp"
#include "vastai_die.hpp"
#include "vastai_names.hpp"

namespace hami::devices::vastai {
namespace {

const hami_device& device_at(const hami_fit_input& in, std::size_t i) {
  if (in.devices[i].device == nullptr)
    throw InvalidInput("fit: device " + std::to_string(i) + " is null");
  return *in.devices[i].device;
}

bool listed(std::span<const std::string_view> cards, std::string_view card) {
  return std::find(cards.begin(), cards.end(), card) != cards.end();
}

}  // namespace

std::vector<std::size_t> best_combination(std::span<const std::optional<std::string_view>> cards,
                                          std::size_t need) {
  struct Group {
    std::optional<std::string_view> card;
    std::vector<std::size_t> dies;
  };
  std::vector<Group> groups;  // in order of first collection
  for (std::size_t i = 0; i < cards.size(); ++i) {
    auto same = groups.end();
    if (cards[i]) {
      same = std::find_if(groups.begin(), groups.end(),
                          [&](const Group& g) { return g.card == cards[i]; });
    }
    if (same == groups.end())
      groups.push_back(Group{cards[i], {i}});
    else
      same->dies.push_back(i);
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const Group& a, const Group& b) { return a.dies.size() > b.dies.size(); });
  std::vector<std::size_t> taken;
  for (const Group& g : groups) {
    for (const std::size_t die : g.dies) {
      if (taken.size() == need)
        return taken;
      taken.push_back(die);
    }
  }
  return taken;
}

ShareFitResult vastai_fit(const hami_fit_input& in, std::span<hami_fit_pick> picks,
                          std::string& reason) {
  const std::size_t need = requested_picks(in, picks);
  if (need == 0)
    return ShareFitResult{true, 0};
  const std::size_t n = in.devices_len;
  const auto [type_sel, uuid_sel] = read_device_selectors(in.pod, {{}, {}, kUseUuid, kNoUseUuid});
  const bool mutex = (in.policy_flags & HAMI_FIT_MUTEX) != 0;

  std::vector<DieInfo> dies;
  dies.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    dies.push_back(decode_die_attributes(to_sv(device_at(in, i).attributes)));
  const bool die_mode = n > 0 && dies[n - 1].is_die();

  // Under mutex a card is exclusive: in die mode, one used die makes every
  // die of its card a conflict.
  std::vector<std::string_view> occupied;
  if (mutex && die_mode) {
    for (std::size_t i = 0; i < n; ++i) {
      if (in.devices[i].used > 0 && dies[i].card())
        occupied.push_back(*dies[i].card());
    }
  }

  const hami_str pick_type = to_str(kVendor);
  const auto write_picks = [&](std::span<const std::size_t> chosen) {
    for (std::size_t p = 0; p < chosen.size(); ++p)
      picks[p] = hami_fit_pick{chosen[p], pick_type, 0, in.request->cores};
    return ShareFitResult{true, chosen.size()};
  };

  ReasonTally tally;
  std::vector<std::size_t> collected;
  for (std::size_t i = 0; i < n; ++i) {
    const hami_device_usage& u = in.devices[i];
    if (const auto refusal = card_refusal(device_at(in, i), u, type_sel, uuid_sel)) {
      tally.add(*refusal);
      continue;
    }
    if (mutex) {
      const auto card = dies[i].card();
      if (u.used > 0 || (die_mode && card && listed(occupied, *card))) {
        tally.add(FitReason::ExclusiveDeviceAllocateConflict);
        continue;
      }
    }
    collected.push_back(i);
    if (!die_mode && collected.size() == need)
      return write_picks(collected);
  }

  if (die_mode && collected.size() >= need) {
    if (collected.size() == need)
      return write_picks(collected);
    if (need == 1)
      return write_picks(std::span(collected).first(1));
    std::vector<std::optional<std::string_view>> cards;
    cards.reserve(collected.size());
    for (const std::size_t i : collected)
      cards.push_back(dies[i].card());
    std::vector<std::size_t> chosen = best_combination(cards, need);
    for (std::size_t& c : chosen)
      c = collected[c];
    return write_picks(chosen);
  }
  if (!collected.empty())
    tally.set(FitReason::AllocatedCardsInsufficientRequest, collected.size());
  reason = tally.render(n);
  return ShareFitResult{false, 0};
}

}  // namespace hami::devices::vastai
