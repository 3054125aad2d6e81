#include "ascend_score.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "ascend_attributes.hpp"
#include "errors.hpp"
#include "hami/plugin.hpp"

namespace hami::devices::ascend {
namespace {

std::optional<double> network_id(const hami_placement_score_input& in, std::string_view id) {
  for (std::size_t i = 0; i < in.devices_len; ++i) {
    const hami_device* d = in.devices[i].device;
    if (d != nullptr && to_sv(d->id) == id)
      return decode_network_id(to_sv(d->attributes));
  }
  return std::nullopt;
}

}  // namespace

double placement_score(const hami_placement_score_input& in) {
  // float32, as HAMi's ScoreNode computes it.
  float sum = 0;
  for (std::size_t c = 0; c < in.containers_len; ++c) {
    const hami_placed_container& pc = in.containers[c];
    if (pc.devices_len == 0)
      continue;
    if (pc.devices == nullptr)
      throw InvalidInput("score_placement: a container's devices are null");
    std::vector<std::pair<std::int64_t, std::size_t>> counts;
    for (std::size_t k = 0; k < pc.devices_len; ++k) {
      const auto id = network_id(in, to_sv(pc.devices[k].id));
      if (!id)
        return 0;
      const std::int64_t group = network_group(*id);
      const auto it = std::find_if(counts.begin(), counts.end(),
                                   [&](const auto& e) { return e.first == group; });
      if (it == counts.end())
        counts.emplace_back(group, 1);
      else
        ++it->second;
    }
    std::size_t most = 0;
    for (const auto& e : counts)
      most = std::max(most, e.second);
    sum += static_cast<float>(most) / static_cast<float>(pc.devices_len);
  }
  return static_cast<double>(sum * 10.0f);
}

}  // namespace hami::devices::ascend
