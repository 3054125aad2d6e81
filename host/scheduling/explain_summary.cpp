#include "scheduling/explain_summary.hpp"

#include <algorithm>
#include <utility>

namespace hami::scheduling {

std::string explanation_summary(const std::vector<NodeExplanation>& nodes) {
  const std::string total = std::to_string(nodes.size());
  const auto first_misfit =
      std::find_if(nodes.begin(), nodes.end(), [](const NodeExplanation& n) { return !n.fits; });
  const auto fit_count = static_cast<size_t>(first_misfit - nodes.begin());
  if (nodes.empty())
    return "0 of 0 nodes: no node to consider";
  if (fit_count > 0) {
    const NodeExplanation& best = nodes.front();
    return std::to_string(fit_count) + " of " + total + " nodes fit; best " + best.name +
           " (score " + std::to_string(best.score) + ")";
  }
  std::vector<std::pair<std::string, size_t>> groups;
  for (const NodeExplanation& n : nodes) {
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& g) { return g.first == n.category; });
    if (it == groups.end())
      groups.emplace_back(n.category, 1);
    else
      ++it->second;
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  // The device that lacks the least memory, on a node of that group.
  const NodeExplanation* closest_node = nullptr;
  const DeviceExplanation* closest = nullptr;
  for (const NodeExplanation& n : nodes) {
    if (n.category != "insufficient memory")
      continue;
    for (const DeviceExplanation& d : n.devices) {
      if (d.memory_short_mib > 0 &&
          (closest == nullptr || d.memory_short_mib < closest->memory_short_mib)) {
        closest = &d;
        closest_node = &n;
      }
    }
  }
  std::string out = "0 of " + total + " nodes: ";
  for (size_t i = 0; i < groups.size(); ++i) {
    if (i > 0)
      out += ", ";
    out += std::to_string(groups[i].second) + " " + groups[i].first;
    if (groups[i].first == "insufficient memory" && closest != nullptr) {
      out += " (best: " + closest_node->name + " GPU " + std::to_string(closest->index) +
             ", short by " + std::to_string(closest->memory_short_mib) + " MiB)";
    }
  }
  return out;
}

}  // namespace hami::scheduling
