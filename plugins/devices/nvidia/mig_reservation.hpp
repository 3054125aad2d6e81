// The pick data nvidia.so records for a MIG pick (set_pick_data) and reports
// for a pod's device entry (decode_pod_allocation); the host hands it back
// to fit as the holds of the device (HAMI-HOST-12).
//
//   data        := [ reservation { ";" reservation } ]
//   reservation := START "," SIZE "," LEN ":" PROFILE
//
// A pick carries exactly one reservation, e.g. "6,1,6:1g.5gb" (1g.5gb at
// slice 6). A decoded entry may carry several, when the pod's MIG
// annotation has more reservations for the GPU than the pod lists entries
// (getNodesUsage restores those on the GPU too). "" = no reservation.
// PROFILE is LEN bytes taken verbatim.
#ifndef HAMI_DEVICES_NVIDIA_MIG_RESERVATION_HPP
#define HAMI_DEVICES_NVIDIA_MIG_RESERVATION_HPP

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mig_types.hpp"

namespace hami::devices::nvidia {

void append_reservation(std::string& out, const MigReservation& r);
std::string encode_reservations(std::span<const MigReservation> reservations);

// Reservations whose profiles view into `data`; nullopt when `data` is not
// what encode_reservations writes. "" decodes to none.
std::optional<std::vector<MigReservation>> decode_reservations(std::string_view data);

// LEN ":" NAME, shared with the attributes text.
void append_name(std::string& out, std::string_view name);
// Takes LEN ":" NAME from the front of `text`; nullopt when malformed.
std::optional<std::string_view> take_name(std::string_view& text);

}  // namespace hami::devices::nvidia

#endif  // HAMI_DEVICES_NVIDIA_MIG_RESERVATION_HPP
