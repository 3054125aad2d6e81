// Decoding of `hami.io/node-nvidia-score`, the GPU topology annotation the
// NVIDIA device plugin writes with ENABLE_TOPOLOGY_SCORE=true:
//   [{"uuid":"GPU-a","score":{"GPU-b":200,"GPU-c":20}}, ...]
// One directed score per (uuid, key) pair. Keys are read case-insensitively
// as Go does; scores must be integers that fit int32.
#ifndef HAMI_DEVICES_COMMON_PAIR_SCORES_HPP
#define HAMI_DEVICES_COMMON_PAIR_SCORES_HPP

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hami::devices {

struct PairScore {
  std::string from;
  std::string to;
  std::int32_t score = 0;
};

// Throws InvalidInput naming the element at fault.
std::vector<PairScore> decode_pair_scores(std::string_view text);

// `hami.io/device-cordon`: comma list of UUIDs, trimmed, empty members
// ignored. Returns true when `id` is listed.
bool listed_in(std::string_view comma_list, std::string_view id) noexcept;

}  // namespace hami::devices

#endif  // HAMI_DEVICES_COMMON_PAIR_SCORES_HPP
