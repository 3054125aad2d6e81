#include "vastai_score.hpp"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "errors.hpp"
#include "hami/plugin.hpp"
#include "vastai_die.hpp"

namespace hami::devices::vastai {
namespace {

const hami_device& registered(const hami_placement_score_input& in, std::string_view id) {
  for (std::size_t i = 0; i < in.devices_len; ++i) {
    const hami_device* d = in.devices[i].device;
    if (d != nullptr && to_sv(d->id) == id)
      return *d;
  }
  throw InvalidInput("score_placement: placed device " + std::string(id) +
                     " is not among the node's devices");
}

}  // namespace

double placement_score(const hami_placement_score_input& in) {
  float score = 0;
  for (std::size_t c = 0; c < in.containers_len; ++c) {
    const hami_placed_container& container = in.containers[c];
    if (container.devices_len == 0)
      continue;
    if (container.devices == nullptr)
      throw InvalidInput("score_placement: container " + std::to_string(c) + " devices is null");
    std::vector<std::pair<std::string_view, int>> per_card;
    for (std::size_t i = 0; i < container.devices_len; ++i) {
      const hami_device& d = registered(in, to_sv(container.devices[i].id));
      const DieInfo die = decode_die_attributes(to_sv(d.attributes));
      if (die.other_strategy() || !die.has_aic())
        return 0;
      const auto card = die.card();
      if (!card)
        continue;  // an AIC that is not a string is not counted
      const auto it = std::find_if(per_card.begin(), per_card.end(),
                                   [&](const auto& e) { return e.first == *card; });
      if (it == per_card.end())
        per_card.emplace_back(*card, 1);
      else
        ++it->second;
    }
    int largest = 0;
    int total = 0;
    for (const auto& [card, dies] : per_card) {
      largest = std::max(largest, dies);
      total += dies;
    }
    if (total == 0)
      continue;
    score += static_cast<float>(largest) / static_cast<float>(total);
  }
  return static_cast<double>(score);
}

}  // namespace hami::devices::vastai
