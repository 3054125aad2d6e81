// Ascend fit (HAMi Devices.Fit, reference §1.5). Devices arrive in try order
// (index 0 first: HAMi's walk from the end of its sorted list).
//
// Before the walk: a pod asking for soft split (huawei.com/vnpu-mode:
// hami-core) on a node without it (its devices' mode is "vnpu", folded in
// by decode_node from the node annotation hami-vnpu-core) fails at once with
// "1/<devices> ModeNotFit".
//
// Per device, the first failing check is its reason: health, cordon, UUID
// selectors (hami.io/use-<CW>-uuid, hami.io/no-use-<CW>-uuid), count >
// used, mutex, memory (the request's MiB, else total × percent / 100),
// cores against effTotal (100 in soft split, else the device's cores), a
// whole-card request on a used card, no cores on a card whose cores are used
// up — HAMi's S-FIT steps with effTotal. Cores above 100 count as 100.
// Picks are typed with the vendor word and take the memory and cores found.
//
// The walk stops at the requested count, except when every device has a
// NetworkID and the vendor word starts with Ascend910 (needTopology), or
// the request is an Ascend910C one for more than one NPU: then every
// passing device is a candidate, and
//   A. Ascend910C, more than one NPU: candidates are grouped by module
//      (index / 2); modules with both NPUs free are taken, largest group
//      first, until the count is reached. Any other outcome fails with the
//      reasons so far plus "<taken>/<count> AllocatedCardsInsufficientRequest",
//      every denominator being the requested count (as HAMi).
//   B. needTopology: exactly the count → all; more and one requested → the
//      first; more → candidates grouped by NetworkID (Go's int()), the
//      groups with the most candidates first, until the count is reached.
//   C. Otherwise "<candidates>/<devices> AllocatedCardsInsufficientRequest"
//      with the per-device reasons.
// §1.9c fixed: groups of equal size (modules in A, NetworkIDs in B) are
// taken in try order of their first candidate, where HAMi's map order and
// unstable sort pick any.
#ifndef HAMI_DEVICES_ASCEND_FIT_HPP
#define HAMI_DEVICES_ASCEND_FIT_HPP

#include <span>
#include <string>
#include <string_view>

#include "hami/device.h"
#include "share_fit.hpp"

namespace hami::devices::ascend {

struct AscendFitRules {
  std::string_view vendor;  // the pick type
  std::string_view use_uuid_key;
  std::string_view nouse_uuid_key;
  bool network_topology = false;  // vendor word starts with Ascend910
  bool module_pairs = false;      // Ascend910C
};

// Throws InvalidInput on inconsistent input (a null device, room for fewer
// picks than the count, malformed attributes).
ShareFitResult ascend_fit(const AscendFitRules& rules, const hami_fit_input& in,
                          std::span<hami_fit_pick> picks, std::string& reason);

}  // namespace hami::devices::ascend

#endif  // HAMI_DEVICES_ASCEND_FIT_HPP
