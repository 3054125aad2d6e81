// Topology-aware choice among candidate devices, from directed pair scores
// (higher = better connected; HAMi §5.5):
//   least_connected — the candidate whose summed scores towards all other
//     candidates is lowest (a single card should not break up a
//     well-connected set);
//   best_connected  — the n-combination whose summed pairwise scores
//     (earlier → later in candidate order) is highest.
// Missing pairs score 0. Ties go to the earliest candidate/combination in
// candidate order, which is the policy's try order.
#ifndef HAMI_DEVICES_COMMON_PAIR_SELECTION_HPP
#define HAMI_DEVICES_COMMON_PAIR_SELECTION_HPP

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "hami/device.h"

namespace hami::devices {

class PairMatrix {
 public:
  PairMatrix(std::span<const std::string_view> ids, std::span<const hami_pair_score> scores);
  std::size_t size() const noexcept { return n_; }
  std::int64_t at(std::size_t from, std::size_t to) const noexcept { return m_[from * n_ + to]; }

 private:
  std::size_t n_;
  std::vector<std::int64_t> m_;
};

std::size_t least_connected(const PairMatrix& m);

// Indices of the chosen candidates, ascending. When C(size, n) exceeds
// `max_combinations`, a greedy choice is made instead: the best pair, then
// repeatedly the candidate adding the most score to the chosen set.
std::vector<std::size_t> best_connected(const PairMatrix& m, std::size_t n,
                                        std::size_t max_combinations);

}  // namespace hami::devices

#endif  // HAMI_DEVICES_COMMON_PAIR_SELECTION_HPP
