// HAMi's Vastai Fit (§11.5). Devices arrive in try order (index 0 first,
// HAMi's walk from the end of its sorted list). Per device, the first
// failing check is its reason:
//   1  not healthy                               CardNotHealth
//   –  cordoned (hami.io/device-cordon)          CardCordoned
//   3  UUID selector                             CardUuidMismatch
//   4  count <= used                             CardTimeSlicingExhausted
//   5  mutex policy and used > 0, or, in die mode,
//      a die of the same card (AIC) used         ExclusiveDeviceAllocateConflict
// (HAMi's step 2, request type == "Vastai", has no ABI form: the host
// hands fit only this vendor's devices.)
//
// Die mode is on when HAMi's FIRST device — the LAST in try order — has
// custominfo DeviceStrategy "die" (vastai_die.hpp); HAMi §11.9a, a node
// mixing dies and whole cards, is kept as HAMi decides it.
// Outside die mode the walk ends with success as soon as the count is
// picked (S-FIT). In die mode every passing die is collected, then:
// exactly the count → those; more, count 1 → the first collected; more,
// count > 1 → best_combination. Too few (either mode) fails, with
// AllocatedCardsInsufficientRequest set to the number collected when any.
// Picks are typed "Vastai" and take no memory and the request's cores (0
// for every request this plugin makes), as HAMi's picks do.
#ifndef HAMI_DEVICES_VASTAI_FIT_HPP
#define HAMI_DEVICES_VASTAI_FIT_HPP

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hami/device.h"
#include "share_fit.hpp"

namespace hami::devices::vastai {

// Throws InvalidInput on inconsistent input (null request or device, picks
// smaller than the count, attributes that are not vastai_die.hpp's text).
ShareFitResult vastai_fit(const hami_fit_input& in, std::span<hami_fit_pick> picks,
                          std::string& reason);

// HAMi's computeBestCombination: `cards[i]` is the card (AIC) of collected
// die i, in collection order. Dies are grouped by card, groups ordered by
// size, largest first, and taken group by group (each group's dies in
// collection order) until `need` are taken. Returns positions into `cards`
// (all of them when there are fewer than `need`).
// Differences, on purpose:
//   §11.9b: groups of equal size keep the order in which their first die
//   was collected (HAMi: Go map order, i.e. random), so equal nodes always
//   get the same dies.
//   A die without a string AIC is its own group of one (HAMi leaves it out
//   and may then report success with fewer devices than requested).
std::vector<std::size_t> best_combination(std::span<const std::optional<std::string_view>> cards,
                                          std::size_t need);

}  // namespace hami::devices::vastai

#endif  // HAMI_DEVICES_VASTAI_FIT_HPP
