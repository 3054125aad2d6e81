// HAMi's device ordering (pkg/scheduler/policy/gpu_policy.go,
// DeviceUsageList.Less) and node score, as pure functions.
//
// HAMi sorts ascending by Less and its Fit walks the list from the END; the
// ABI instead hands the vendor's fit a TRY order, index 0 first. try_order
// therefore returns the reverse of HAMi's sorted list: device a is tried
// before device b when Less(b, a).
//
// Ties: devices that compare equal are tried last registered first, as in
// HAMi v2.10 on nodes of up to 12 devices, where Go's sort.Sort is an
// insertion sort that keeps ties in registration order. On larger nodes
// HAMi's sort is pdqsort, which is not stable, so its order on ties follows
// that algorithm; here the same last-registered-first rule holds at every
// size. Each call starts from registration order, while HAMi re-sorts one
// list across a pod's app containers (README.md, "Where the order differs").
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace hami::policies {

// What the ordering looks at for one device.
struct DeviceFacts {
  double score = 0;  // HAMi §5.4 device score, computed by the host
  int32_t numa = 0;
  uint32_t index = 0;  // the device's registered index
  int32_t used = 0;    // tasks already placed
};

// The comma-separated words of a policy text, trimmed, empty ones dropped.
std::vector<std::string_view> policy_words(std::string_view policy);

// Comma-aware containment: "mutex,spread" contains "mutex".
bool policy_contains(std::string_view policy, std::string_view word);

// Whether every word is one of binpack, spread, numa, mutex, topology-aware
// (and there is at least one).
bool known_device_policy(std::string_view policy);

// HAMi's Less(a, b) for `policy` (trimmed) with the pod's numa-bind flag.
bool hami_less(std::string_view policy, bool numa_bind, const DeviceFacts& a, const DeviceFacts& b);

// Device positions in the order fit should try them.
std::vector<size_t> try_order(std::string_view policy, bool numa_bind,
                              std::span<const DeviceFacts> devices);
// The same into `order` (devices.size() entries), without allocating.
void try_order_into(std::string_view policy, bool numa_bind, std::span<const DeviceFacts> devices,
                    std::span<size_t> order);

// HAMI_FIT_* flags the policy asks the vendor's fit for.
uint32_t fit_flags(std::string_view policy);

// Node score in [0, 100] for node policy `policy` ("binpack" or "spread").
// HAMi's default score 10 × (ΣUsed/ΣCount + ΣUsedcores/ΣTotalcore +
// ΣUsedmem/ΣTotalmem), 0 when any total is 0, scaled from [0, 30] to
// [0, 100]; spread is its mirror (100 − x) because the host always prefers
// the higher score while HAMi's spread picks the lowest.
// Returns a negative value for an unknown policy.
double node_score(std::string_view policy, int64_t used, int64_t count, int64_t used_cores,
                  int64_t total_cores, int64_t used_memory, int64_t total_memory);

// The node score with the pod's vendor placement terms (ABI 1.2), in HAMi's
// units: HAMi adds `vendor` to its default score and `neutral` × 10000
// (negated under spread, which picks the lowest), then binpack keeps the
// highest and spread the lowest. On node_score's scale, where the host
// always prefers the higher score: binpack adds vendor × 100/30, spread
// subtracts it, and both add neutral × 10000 × 100/30. Not clamped: the
// terms may take it outside [0, 100]. Negative `base` (unknown policy) is
// returned as it is.
double node_score_with_vendor_terms(std::string_view policy, double base, double vendor,
                                    double neutral);

}  // namespace hami::policies
