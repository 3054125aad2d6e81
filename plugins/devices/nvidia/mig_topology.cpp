#include "mig_topology.hpp"

#include <algorithm>
#include <functional>
#include <map>

namespace hami::devices::nvidia {
namespace {

bool prefer_high(std::string_view profile) noexcept {
  return profile.starts_with("1g.") || profile.starts_with("3g.");
}

const MigProfile* find_profile(std::span<const MigProfile> profiles, std::string_view name) {
  for (const MigProfile& p : profiles) {
    if (p.name == name)
      return &p;
  }
  return nullptr;
}

bool is_free(const MigPlacement& candidate, std::span<const MigPlacement> occupied) {
  return std::none_of(occupied.begin(), occupied.end(), [&](const MigPlacement& existing) {
    return placements_overlap(candidate, existing);
  });
}

}  // namespace

bool placements_overlap(const MigPlacement& a, const MigPlacement& b) noexcept {
  // Go computes in uint32; the sums are widened here so a hostile
  // registration cannot wrap them.
  const std::uint64_t a_end = std::uint64_t{a.start} + a.size;
  const std::uint64_t b_end = std::uint64_t{b.start} + b.size;
  return a.start < b_end && b.start < a_end;
}

std::vector<MigPlacement> ordered_placements(std::string_view profile,
                                             std::span<const MigPlacement> placements) {
  std::vector<MigPlacement> ordered(placements.begin(), placements.end());
  if (prefer_high(profile)) {
    std::stable_sort(
        ordered.begin(), ordered.end(),
        [](const MigPlacement& a, const MigPlacement& b) { return a.start > b.start; });
  } else {
    std::stable_sort(
        ordered.begin(), ordered.end(),
        [](const MigPlacement& a, const MigPlacement& b) { return a.start < b.start; });
  }
  return ordered;
}

std::optional<MigPlacement> select_placement(std::span<const MigProfile> profiles,
                                             std::span<const MigPlacement> occupied,
                                             std::string_view profile) {
  const MigProfile* p = find_profile(profiles, profile);
  if (p == nullptr)
    return std::nullopt;
  for (const MigPlacement& candidate : ordered_placements(profile, p->placements)) {
    if (is_free(candidate, occupied))
      return candidate;
  }
  return std::nullopt;
}

std::optional<MigChoice> select_candidate(std::span<const MigProfile> profiles,
                                          std::span<const MigPlacement> occupied,
                                          std::int64_t memory) {
  std::vector<const MigProfile*> candidates;
  candidates.reserve(profiles.size());
  for (const MigProfile& p : profiles)
    candidates.push_back(&p);
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const MigProfile* a, const MigProfile* b) {
                     if (a->memory_mb != b->memory_mb)
                       return a->memory_mb < b->memory_mb;
                     return a->slice_count < b->slice_count;
                   });
  for (const MigProfile* p : candidates) {
    if (p->memory_mb < memory)
      continue;
    if (const auto placement = select_placement(profiles, occupied, p->name))
      return MigChoice{p, *placement};
  }
  return std::nullopt;
}

bool can_place_profiles(std::span<const MigProfile> profiles,
                        std::span<const MigPlacement> occupied,
                        std::span<const std::string_view> requested) {
  if (requested.empty())
    return true;
  // As Go's map: a later profile of the same name replaces an earlier one.
  std::map<std::string_view, std::span<const MigPlacement>> placements;
  for (const MigProfile& p : profiles)
    placements[p.name] = p.placements;
  const auto of = [&](std::string_view name) -> std::span<const MigPlacement> {
    const auto it = placements.find(name);
    return it == placements.end() ? std::span<const MigPlacement>{} : it->second;
  };
  std::vector<std::string_view> ordered(requested.begin(), requested.end());
  std::stable_sort(ordered.begin(), ordered.end(), [&](std::string_view a, std::string_view b) {
    const auto left = of(a);
    const auto right = of(b);
    if (left.size() != right.size())
      return left.size() < right.size();
    if (left.empty())
      return false;
    return left[0].size > right[0].size;
  });
  std::vector<MigPlacement> used(occupied.begin(), occupied.end());
  // Depth is bounded by the number of requested profiles.
  const std::function<bool(std::size_t)> place = [&](std::size_t idx) {
    if (idx == ordered.size())
      return true;
    for (const MigPlacement& candidate : ordered_placements(ordered[idx], of(ordered[idx]))) {
      if (!is_free(candidate, used))
        continue;
      used.push_back(candidate);
      if (place(idx + 1))
        return true;
      used.pop_back();
    }
    return false;
  };
  return place(0);
}

}  // namespace hami::devices::nvidia
