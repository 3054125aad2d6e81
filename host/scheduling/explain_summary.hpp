// The one-line summary of an explanation (explain.hpp).
#pragma once

#include <string>
#include <vector>

#include "scheduling/explain.hpp"

namespace hami::scheduling {

// `nodes`: ranked, fitting ones first (Explanation::nodes).
//   "3 of 5 nodes fit; best gpu-a100-1 (score 4)"
//   "0 of 5 nodes: 2 no GPU registered, 2 insufficient memory (best:
//    gpu-a100-1 GPU 1, short by 2048 MiB), 1 locked"
// Groups by size, largest first, ties in the order their first node comes;
// the insufficient-memory group names the device that comes closest.
std::string explanation_summary(const std::vector<NodeExplanation>& nodes);

}  // namespace hami::scheduling
