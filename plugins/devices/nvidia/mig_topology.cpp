#include "mig_topology.hpp"

#include <algorithm>

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

}  // namespace hami::devices::nvidia
