#include "mig_pod_allocation.hpp"

#include <deque>
#include <map>

#include "errors.hpp"
#include "hami/plugin.hpp"
#include "mig_allocations.hpp"
#include "mig_reservation.hpp"

namespace hami::devices::nvidia {

std::optional<std::string> mig_annotation_for(std::span<const hami_placed_container> containers) {
  std::vector<MigAllocation> entries;
  for (std::size_t c = 0; c < containers.size(); ++c) {
    const hami_placed_container& container = containers[c];
    if (container.devices_len != 0 && container.devices == nullptr)
      throw InvalidInput("container " + std::to_string(c) + " has devices_len but no devices");
    for (std::size_t d = 0; d < container.devices_len; ++d) {
      const hami_placed_device& device = container.devices[d];
      const std::string_view data = to_sv(device.data);
      if (data.empty())
        continue;
      const auto reservations = decode_reservations(data);
      if (!reservations || reservations->size() != 1) {
        throw InvalidInput("container " + std::to_string(c) + " device " + std::to_string(d) +
                           ": data is not one MIG reservation");
      }
      const MigReservation& r = reservations->front();
      if (r.profile.empty() || r.placement.size == 0)
        continue;  // as EncodeMigAllocations
      MigAllocation a;
      a.container_index = static_cast<std::int64_t>(c);
      a.device_index = static_cast<std::int64_t>(d);
      a.gpu_uuid = std::string(to_sv(device.id));
      a.profile = std::string(r.profile);
      a.placement = r.placement;
      entries.push_back(std::move(a));
    }
  }
  if (entries.empty())
    return std::nullopt;
  return encode_mig_allocations(entries);
}

PlacedAllocation decode_placed_allocation(std::string_view allocation,
                                          std::optional<std::string_view> mig) {
  PlacedAllocation out;
  decode_allocation(
      allocation, [&] { out.emplace_back(); },
      [&](const AllocatedDevice& d) {
        out.back().push_back(PlacedEntry{d, {}});
      });
  if (!mig)
    return out;
  std::vector<MigAllocation> reservations;
  try {
    reservations = decode_mig_allocations(*mig, MigAllocationCheck::Strict);
  } catch (const InvalidInput&) {
    return out;  // HAMi ignores an annotation it cannot decode
  }
  std::map<std::string_view, std::deque<const MigAllocation*>> by_gpu;
  for (const MigAllocation& a : reservations)
    by_gpu[a.gpu_uuid].push_back(&a);
  std::map<std::string_view, PlacedEntry*> last_entry;
  for (auto& container : out) {
    for (PlacedEntry& entry : container) {
      last_entry[entry.device.id] = &entry;
      const auto it = by_gpu.find(entry.device.id);
      if (it == by_gpu.end() || it->second.empty())
        continue;
      const MigAllocation& a = *it->second.front();
      it->second.pop_front();
      append_reservation(entry.data, MigReservation{a.profile, a.placement});
    }
  }
  for (const auto& [gpu, left] : by_gpu) {
    const auto entry = last_entry.find(gpu);
    if (entry == last_entry.end())
      continue;  // a GPU the pod does not list: dropped
    for (const MigAllocation* a : left) {
      std::string& data = entry->second->data;
      if (!data.empty())
        data += ';';
      append_reservation(data, MigReservation{a->profile, a->placement});
    }
  }
  return out;
}

}  // namespace hami::devices::nvidia
