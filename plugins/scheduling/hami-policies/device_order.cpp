#include "device_order.hpp"

#include <algorithm>
#include <array>
#include <numeric>

#include "hami/device.h"
#include "hami/policy_text.hpp"

namespace hami::policies {

namespace {

constexpr std::string_view kBinpack = "binpack";
constexpr std::string_view kSpread = "spread";
constexpr std::string_view kNuma = "numa";
constexpr std::string_view kMutex = "mutex";
constexpr std::string_view kTopology = "topology-aware";

using hami::trim_policy_word;

// HAMi's gpuSortKeyChain: binpack/spread/numa in written order, deduplicated;
// the filters (mutex, topology-aware) are not sort keys. At most three keys,
// so a fixed array holds them.
struct KeyChain {
  std::array<std::string_view, 3> keys{};
  size_t size = 0;

  bool has(std::string_view key) const {
    return std::find(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(size), key) !=
           keys.begin() + static_cast<std::ptrdiff_t>(size);
  }
};

KeyChain sort_key_chain(std::string_view policy, bool numa_bind) {
  KeyChain chain;
  for (const std::string_view word : policy_words(policy)) {
    if ((word == kBinpack || word == kSpread || word == kNuma) && !chain.has(word)) {
      chain.keys[chain.size++] = word;
    }
  }
  if (chain.size == 0)
    chain.keys[chain.size++] = kSpread;
  // numa-bind keeps NUMA groups contiguous for the vendor's same-NUMA run.
  if (numa_bind && chain.keys[0] != kNuma) {
    KeyChain with_numa;
    with_numa.keys[with_numa.size++] = kNuma;
    for (size_t i = 0; i < chain.size; ++i) {
      if (chain.keys[i] != kNuma)
        with_numa.keys[with_numa.size++] = chain.keys[i];
    }
    return with_numa;
  }
  return chain;
}

bool less_by_chain(const KeyChain& chain, const DeviceFacts& a, const DeviceFacts& b) {
  for (size_t i = 0; i < chain.size; ++i) {
    const std::string_view key = chain.keys[i];
    if (key == kBinpack && a.score != b.score)
      return a.score < b.score;
    if (key == kSpread && a.score != b.score)
      return a.score > b.score;
    if (key == kNuma && a.numa != b.numa)
      return a.numa < b.numa;
  }
  return a.index < b.index;
}

// A single (non-chain) policy value, resolved once per call.
enum class Single { Binpack, Mutex, Spread };

Single single_kind(std::string_view policy) {
  if (policy == kBinpack)
    return Single::Binpack;
  if (policy == kMutex)
    return Single::Mutex;
  return Single::Spread;  // spread, topology-aware and anything unknown
}

bool less_single(Single kind, bool numa_bind, const DeviceFacts& a, const DeviceFacts& b) {
  // mutex: busy devices first, so the idle ones (at the tail) are tried first.
  if (kind == Single::Mutex) {
    if (a.used != b.used)
      return a.used > b.used;
    return a.numa < b.numa;
  }
  const bool binpack = kind == Single::Binpack;
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
  hami::for_each_policy_word(policy, [&](std::string_view word) {
    if (!word.empty())
      words.push_back(word);
    return true;
  });
  return words;
}

bool policy_contains(std::string_view policy, std::string_view word) {
  // Asked per container per node: walks the words without collecting them.
  return !hami::for_each_policy_word(policy, [&](std::string_view w) { return w != word; });
}

bool known_device_policy(std::string_view policy) {
  bool any = false;
  const bool known = hami::for_each_policy_word(policy, [&](std::string_view w) {
    if (w.empty())
      return true;
    any = true;
    return w == kBinpack || w == kSpread || w == kNuma || w == kMutex || w == kTopology;
  });
  return known && any;
}

bool hami_less(std::string_view policy, bool numa_bind, const DeviceFacts& a,
               const DeviceFacts& b) {
  policy = trim_policy_word(policy);
  if (is_chain(policy))
    return less_by_chain(sort_key_chain(policy, numa_bind), a, b);
  return less_single(single_kind(policy), numa_bind, a, b);
}

namespace {

// Go's insertionSort, which sort.Sort uses for up to 12 elements: stable,
// and move for move the same as HAMi's. Unlike std::stable_sort it needs no
// buffer.
template <class Less>
void stable_insertion_sort(std::span<size_t> order, Less less) {
  for (size_t i = 1; i < order.size(); ++i) {
    const size_t value = order[i];
    size_t j = i;
    while (j > 0 && less(value, order[j - 1])) {
      order[j] = order[j - 1];
      --j;
    }
    order[j] = value;
  }
}

template <class Less>
void stable_sort_positions(std::span<size_t> order, Less less) {
  if (order.size() <= 32) {
    stable_insertion_sort(order, less);
  } else {
    std::stable_sort(order.begin(), order.end(), less);
  }
}

}  // namespace

void try_order_into(std::string_view policy, bool numa_bind, std::span<const DeviceFacts> devices,
                    std::span<size_t> order) {
  policy = trim_policy_word(policy);
  // HAMi's list: registration order sorted ascending by Less, ties kept in
  // registration order. Its Fit walks that list from the end, so the try
  // order is the list reversed: on ties the highest position goes first.
  std::iota(order.begin(), order.end(), size_t{0});
  if (is_chain(policy)) {
    const KeyChain chain = sort_key_chain(policy, numa_bind);
    stable_sort_positions(
        order, [&](size_t x, size_t y) { return less_by_chain(chain, devices[x], devices[y]); });
  } else {
    const Single kind = single_kind(policy);
    stable_sort_positions(order, [&](size_t x, size_t y) {
      return less_single(kind, numa_bind, devices[x], devices[y]);
    });
  }
  std::reverse(order.begin(), order.end());
}

std::vector<size_t> try_order(std::string_view policy, bool numa_bind,
                              std::span<const DeviceFacts> devices) {
  std::vector<size_t> order(devices.size());
  try_order_into(policy, numa_bind, devices, order);
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
  policy = trim_policy_word(policy);
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

double node_score_with_vendor_terms(std::string_view policy, double base, double vendor,
                                    double neutral) {
  if (base < 0 || (vendor == 0 && neutral == 0))
    return base;
  constexpr double kScale = 100.0 / 30.0;  // HAMi's [0, 30] onto [0, 100]
  constexpr double kNeutralWeight = 10000.0;
  const double sign = trim_policy_word(policy) == kSpread ? -1.0 : 1.0;
  return base + (sign * vendor + kNeutralWeight * neutral) * kScale;
}

}  // namespace hami::policies
