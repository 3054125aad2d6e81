// Saturating arithmetic on non-negative quantities (MiB, cores, counts):
// quota limits and demands come from user text and may be as large as
// int64 holds, so a product or sum stops at the largest value instead of
// overflowing (undefined behaviour, and a wrapped limit refuses everything).
#pragma once

#include <cstdint>
#include <limits>

namespace hami::platform {

inline constexpr int64_t kSaturated = std::numeric_limits<int64_t>::max();

// a + b for a, b >= 0, at most kSaturated.
constexpr int64_t saturating_add(int64_t a, int64_t b) {
  return a > kSaturated - b ? kSaturated : a + b;
}

// a * b for a, b >= 0, at most kSaturated.
constexpr int64_t saturating_mul(int64_t a, int64_t b) {
  if (a == 0 || b == 0)
    return 0;
  return a > kSaturated / b ? kSaturated : a * b;
}

}  // namespace hami::platform
