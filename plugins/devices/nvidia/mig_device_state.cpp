#include "mig_device_state.hpp"

#include <cstddef>

#include "hami/plugin.hpp"
#include "mig_attributes.hpp"
#include "mig_reservation.hpp"

namespace hami::devices::nvidia {

bool holds_consistent(bool mig_mode, std::span<const hami_str> holds) {
  for (const hami_str& h : holds) {
    if (!mig_mode) {
      if (h.len != 0)
        return false;
      continue;
    }
    if (h.len == 0)
      return false;
    const auto reservations = decode_reservations(to_sv(h));
    if (!reservations || reservations->empty())
      return false;
  }
  return true;
}

namespace {

std::string_view attributes_of(const hami_device& device) {
  // A 1.0 host's devices end before `attributes`.
  constexpr std::size_t kEnd = offsetof(hami_device, attributes) + sizeof(hami_str);
  return device.struct_size >= kEnd ? to_sv(device.attributes) : std::string_view{};
}

}  // namespace

MigDeviceState::MigDeviceState(const hami_device& device, std::span<const hami_str> holds)
    : profiles_(decode_mig_attributes(attributes_of(device))) {
  for (const MigProfile& p : profiles_)
    placement_count_ += p.placements.size();
  for (const hami_str& h : holds) {
    if (const auto reservations = decode_reservations(to_sv(h))) {
      for (const MigReservation& r : *reservations)
        occupied_.push_back(r.placement);
    }
  }
  held_ = occupied_.size();
}

std::optional<MigChoice> MigDeviceState::candidate(std::int64_t memory) const {
  return select_candidate(profiles_, occupied_, memory);
}

}  // namespace hami::devices::nvidia
