// HAMi's Vastai ScoreNode (§11.7) as score_placement: per container of the
// pod that has Vastai devices, `largest number of its dies on one card (AIC)
// / its dies with a string AIC`, summed over the containers. The whole node
// scores 0 as soon as one placed device has no AIC member, or a
// DeviceStrategy that is a string other than "die" (a device without
// custominfo has no AIC). Computed in float32, as HAMi does, so ties and
// sums compare as in HAMi.
//
// X10, kept as HAMi: the term is added raw and is not policy-neutral
// (policy_neutral 0). Under the spread node policy the host therefore
// prefers nodes where a pod's dies are spread over more cards, exactly as
// HAMi does; making it policy-neutral would weight it ×10000 and let it
// override every other term of HAMi's node score under binpack as well.
#ifndef HAMI_DEVICES_VASTAI_SCORE_HPP
#define HAMI_DEVICES_VASTAI_SCORE_HPP

#include "hami/device.h"

namespace hami::devices::vastai {

// Throws InvalidInput when a placed device is not among `in.devices`, or a
// device's attributes are not vastai_die.hpp's text.
double placement_score(const hami_placement_score_input& in);

}  // namespace hami::devices::vastai

#endif  // HAMI_DEVICES_VASTAI_SCORE_HPP
