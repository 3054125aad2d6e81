// Device scoring weights (pod annotation `hami.io/device-scoring-weights`)
// and the per-device score of HAMi §5.4 that device policies order by.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace hami::scheduling {

inline constexpr std::string_view kDeviceScoringWeightsAnnotation =
    "hami.io/device-scoring-weights";

struct ScoringWeights {
  int64_t slot = 1;
  int64_t core = 1;
  int64_t memory = 1;
};

// Parses "slot=1,core=1,memory=3" (any order, spaces allowed): exactly the
// three keys, no duplicates, non-negative integers, not all zero. On error
// returns HAMi's message, e.g.
//   invalid hami.io/device-scoring-weights annotation "slot=1": expected
//   slot, core, and memory weights
std::variant<ScoringWeights, std::string> parse_scoring_weights(std::string_view value);


// What one container asks of one device, for the score's request terms
// (one request per vendor; HAMi adds 1 slot per request).
struct ScoreRequest {
  int32_t slots = 0;  // 0 or 1
  int64_t memory_mib = 0;
  int32_t memory_percent = 0;
  int64_t cores = 0;
};

// 10 × (ws·(req+used)/count + wc·(reqCores+usedCores)/totalCores +
//       wm·(reqMem+usedMem)/totalMem); 0 when count, cores or memory is 0.
// A request without MiB but with a percentage counts as totalMem × pct / 100.
double device_score(const ScoringWeights& w, const ScoreRequest& request, int32_t used,
                    int32_t count, int64_t used_cores, int32_t total_cores, int64_t used_memory,
                    int64_t total_memory);

}  // namespace hami::scheduling
