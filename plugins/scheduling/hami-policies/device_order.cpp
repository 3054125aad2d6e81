#include "device_order.hpp"

#include <algorithm>
#include <numeric>

#include "hami/device.h"

namespace hami::policies {

namespace {

constexpr std::string_view kBinpack = "binpack";
constexpr std::string_view kSpread = "spread";
constexpr std::string_view kNuma = "numa";
constexpr std::string_view kMutex = "mutex";
constexpr std::string_view kTopology = "topology-aware";

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos)
    return {};
  const auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

// HAMi's gpuSortKeyChain: binpack/spread/numa in written order, deduplicated;
// the filters (mutex, topology-aware) are not sort keys.
std::vector<std::string_view> sort_key_chain(std::string_view policy, bool numa_bind) {
  std::vector<std::string_view> chain;
  for (const std::string_view word : policy_words(policy)) {
    if ((word == kBinpack || word == kSpread || word == kNuma) &&
        std::find(chain.begin(), chain.end(), word) == chain.end()) {
      chain.push_back(word);
    }
  }
  if (chain.empty())
    chain.push_back(kSpread);
  // numa-bind keeps NUMA groups contiguous for the vendor's same-NUMA run.
  if (numa_bind && chain.front() != kNuma) {
    chain.erase(std::remove(chain.begin(), chain.end(), kNuma), chain.end());
    chain.insert(chain.begin(), kNuma);
  }
  return chain;
}

bool less_by_chain(const std::vector<std::string_view>& chain, const DeviceFacts& a,
                   const DeviceFacts& b) {
  for (const std::string_view key : chain) {
    if (key == kBinpack && a.score != b.score)
      return a.score < b.score;
    if (key == kSpread && a.score != b.score)
      return a.score > b.score;
    if (key == kNuma && a.numa != b.numa)
      return a.numa < b.numa;
  }
  return a.index < b.index;
}

bool less_single(std::string_view policy, bool numa_bind, const DeviceFacts& a,
                 const DeviceFacts& b) {
  const bool binpack = policy == kBinpack;
  // mutex: busy devices first, so the idle ones (at the tail) are tried first.
  if (policy == kMutex) {
    if (a.used != b.used)
      return a.used > b.used;
    return a.numa < b.numa;
  }
  if (numa_bind) {
    if (binpack) {
      if (a.numa == b.numa)
        return a.score < b.score;
      return a.numa > b.numa;
    }
    if (a.numa == b.numa)
      return a.score > b.score;
    return a.numa < b.numa;
  }
  // Score first, NUMA only breaks ties (HAMi #1806).
  if (binpack) {
    if (a.score != b.score)
      return a.score < b.score;
    return a.numa < b.numa;
  }
  if (a.score != b.score)
    return a.score > b.score;
  return a.numa < b.numa;
}

bool is_chain(std::string_view policy) {
  return policy.find(',') != std::string_view::npos || policy == kNuma;
}

}  // namespace

std::vector<std::string_view> policy_words(std::string_view policy) {
  std::vector<std::string_view> words;
  size_t start = 0;
  while (start <= policy.size()) {
    size_t end = policy.find(',', start);
    if (end == std::string_view::npos)
      end = policy.size();
    const std::string_view word = trim(policy.substr(start, end - start));
    if (!word.empty())
      words.push_back(word);
    start = end + 1;
  }
  return words;
}

bool policy_contains(std::string_view policy, std::string_view word) {
  for (const std::string_view w : policy_words(policy)) {
    if (w == word)
      return true;
  }
  return false;
}

bool known_device_policy(std::string_view policy) {
  const auto words = policy_words(policy);
  if (words.empty())
    return false;
  return std::all_of(words.begin(), words.end(), [](std::string_view w) {
    return w == kBinpack || w == kSpread || w == kNuma || w == kMutex || w == kTopology;
  });
}

bool hami_less(std::string_view policy, bool numa_bind, const DeviceFacts& a,
               const DeviceFacts& b) {
  policy = trim(policy);
  if (is_chain(policy))
    return less_by_chain(sort_key_chain(policy, numa_bind), a, b);
  return less_single(policy, numa_bind, a, b);
}

std::vector<size_t> try_order(std::string_view policy, bool numa_bind,
                              std::span<const DeviceFacts> devices) {
  policy = trim(policy);
  std::vector<size_t> order(devices.size());
  std::iota(order.begin(), order.end(), size_t{0});
  if (is_chain(policy)) {
    const auto chain = sort_key_chain(policy, numa_bind);
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
      return less_by_chain(chain, devices[y], devices[x]);
    });
  } else {
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
      return less_single(policy, numa_bind, devices[y], devices[x]);
    });
  }
  return order;
}

uint32_t fit_flags(std::string_view policy) {
  uint32_t flags = 0;
  if (policy_contains(policy, kMutex))
    flags |= HAMI_FIT_MUTEX;
  if (policy_contains(policy, kTopology))
    flags |= HAMI_FIT_TOPOLOGY_AWARE;
  return flags;
}

double node_score(std::string_view policy, int64_t used, int64_t count, int64_t used_cores,
                  int64_t total_cores, int64_t used_memory, int64_t total_memory) {
  policy = trim(policy);
  if (policy != kBinpack && policy != kSpread)
    return -1;
  double sum = 0;
  if (count > 0 && total_cores > 0 && total_memory > 0) {
    sum = static_cast<double>(used) / static_cast<double>(count) +
          static_cast<double>(used_cores) / static_cast<double>(total_cores) +
          static_cast<double>(used_memory) / static_cast<double>(total_memory);
  }
  // Over-committed nodes (annotations the node plugin wrote by hand) can
  // exceed 1 per term; the ABI range is [0, 100].
  const double scaled = std::clamp(sum * 100.0 / 3.0, 0.0, 100.0);
  return policy == kBinpack ? scaled : 100.0 - scaled;
}

}  // namespace hami::policies
