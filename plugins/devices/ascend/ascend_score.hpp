// The Ascend term of the node score (HAMi ScoreNode, reference §1.7), for
// vendor words starting with Ascend910: per container with NPUs, the largest
// number of its NPUs sharing one NetworkID divided by its NPU count, summed
// and multiplied by 10. A placed NPU without a NetworkID (or not among the
// node's devices) makes the whole term 0. Other vendor words score 0.
//
// X10 / §1.9f kept: the term is not policy-neutral. It is added as HAMi adds
// it, so node policy spread prefers a lower term (placements spread over
// rings); weighting it ×10000 would override every other part of the node
// choice, which HAMi does not do.
#ifndef HAMI_DEVICES_ASCEND_SCORE_HPP
#define HAMI_DEVICES_ASCEND_SCORE_HPP

#include "hami/device.h"

namespace hami::devices::ascend {

// Throws InvalidInput on malformed attributes or null arrays.
double placement_score(const hami_placement_score_input& in);

}  // namespace hami::devices::ascend

#endif  // HAMI_DEVICES_ASCEND_SCORE_HPP
