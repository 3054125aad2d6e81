#include "pair_selection.hpp"

#include <algorithm>
#include <limits>

#include "hami/plugin.hpp"
#include "text.hpp"

namespace hami::devices {
namespace {

// C(n, k), or cap + 1 when it exceeds cap. The running value c is
// C(n-k+i, i), which only grows with i, so stopping early is exact.
std::size_t combinations(std::size_t n, std::size_t k, std::size_t cap) {
  if (k > n)
    return 0;
  k = std::min(k, n - k);
  std::size_t c = 1;
  for (std::size_t i = 1; i <= k; ++i) {
    const std::size_t factor = n - k + i;
    if (c > std::numeric_limits<std::size_t>::max() / factor)
      return cap + 1;
    c = c * factor / i;
    if (c > cap)
      return cap + 1;
  }
  return c;
}

std::int64_t set_score(const PairMatrix& m, const std::vector<std::size_t>& set) {
  std::int64_t total = 0;
  for (std::size_t i = 0; i + 1 < set.size(); ++i) {
    for (std::size_t j = i + 1; j < set.size(); ++j)
      total += m.at(set[i], set[j]);
  }
  return total;
}

std::vector<std::size_t> greedy(const PairMatrix& m, std::size_t n) {
  const std::size_t size = m.size();
  std::vector<std::size_t> chosen;
  std::size_t best_i = 0;
  std::size_t best_j = 1;
  std::int64_t best = std::numeric_limits<std::int64_t>::min();
  for (std::size_t i = 0; i < size; ++i) {
    for (std::size_t j = i + 1; j < size; ++j) {
      if (m.at(i, j) > best) {
        best = m.at(i, j);
        best_i = i;
        best_j = j;
      }
    }
  }
  std::vector<bool> in(size, false);
  chosen = {best_i, best_j};
  in[best_i] = in[best_j] = true;
  while (chosen.size() < n) {
    std::size_t pick = size;
    std::int64_t gain_best = std::numeric_limits<std::int64_t>::min();
    for (std::size_t c = 0; c < size; ++c) {
      if (in[c])
        continue;
      std::int64_t gain = 0;
      for (const std::size_t s : chosen)
        gain += s < c ? m.at(s, c) : m.at(c, s);
      if (gain > gain_best) {
        gain_best = gain;
        pick = c;
      }
    }
    in[pick] = true;
    chosen.push_back(pick);
  }
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

}  // namespace

PairMatrix::PairMatrix(std::span<const std::string_view> ids,
                       std::span<const hami_pair_score> scores)
    : n_(ids.size()), m_(ids.size() * ids.size(), 0) {
  // An id may stand for several candidates (partitions of one GPU); each of
  // them gets the id's scores, and candidates of one id score 0 together.
  for (const hami_pair_score& s : scores) {
    const std::string_view from_id = to_sv(s.from_id);
    const std::string_view to_id = to_sv(s.to_id);
    if (from_id == to_id)
      continue;
    for (std::size_t from = 0; from < n_; ++from) {
      if (ids[from] != from_id)
        continue;
      for (std::size_t to = 0; to < n_; ++to) {
        if (ids[to] == to_id)
          m_[from * n_ + to] = s.score;
      }
    }
  }
}

std::size_t least_connected(const PairMatrix& m) {
  std::size_t best = 0;
  std::int64_t best_total = std::numeric_limits<std::int64_t>::max();
  for (std::size_t a = 0; a < m.size(); ++a) {
    std::int64_t total = 0;
    for (std::size_t b = 0; b < m.size(); ++b) {
      if (b != a)
        total += m.at(a, b);
    }
    if (total < best_total) {
      best_total = total;
      best = a;
    }
  }
  return best;
}

std::vector<std::size_t> best_connected(const PairMatrix& m, std::size_t n,
                                        std::size_t max_combinations) {
  const std::size_t size = m.size();
  if (n >= size) {
    std::vector<std::size_t> all(size);
    for (std::size_t i = 0; i < size; ++i)
      all[i] = i;
    return all;
  }
  if (n >= 2 && combinations(size, n, max_combinations) > max_combinations)
    return greedy(m, n);

  // Lexicographic enumeration of n-subsets of [0, size).
  std::vector<std::size_t> cur(n);
  for (std::size_t i = 0; i < n; ++i)
    cur[i] = i;
  std::vector<std::size_t> best = cur;
  std::int64_t best_score = set_score(m, cur);
  while (true) {
    std::size_t i = n;
    while (i > 0 && cur[i - 1] == size - n + (i - 1))
      --i;
    if (i == 0)
      break;
    ++cur[i - 1];
    for (std::size_t j = i; j < n; ++j)
      cur[j] = cur[j - 1] + 1;
    const std::int64_t s = set_score(m, cur);
    if (s > best_score) {
      best_score = s;
      best = cur;
    }
  }
  return best;
}

}  // namespace hami::devices
