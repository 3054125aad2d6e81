// Namespace quota check at admission (HAMi reference §2.5, §7.3): a pod's
// device demand per vendor, compared with the namespace's ResourceQuota
// limits and current usage.
#pragma once

#include <hami/device.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "admission/cluster_view.hpp"

namespace hami::admission {

// A pod's demand on one vendor.
struct QuotaDemand {
  int64_t memory_mib = 0;  // after the memory factor
  int64_t cores = 0;
  bool empty() const noexcept { return memory_mib == 0 && cores == 0; }
};

// `requests` holds one entry per container, init containers first
// (`init_count` of them). App containers add up (count × per-device value);
// init containers run one after another, so the largest counts; the demand
// is the larger of the two, for memory and cores separately. Sums saturate
// at INT64_MAX instead of overflowing.
QuotaDemand pod_demand(std::span<const hami_device_request> requests, size_t init_count);

// The vendor's quota-relevant resource names (empty = not used).
struct QuotaResources {
  std::string_view memory;
  std::string_view cores;
  int32_t memory_factor = 1;
};

// The quota rule, the one copy admission and filter share (HAMi §7.3): a
// limit holds when used + demand <= limit × scale, saturating. `scale` is the
// vendor's memory factor for memory limits (see memory_limit_scale) and 1
// for cores. Negative values count as 0.
bool within_limit(int64_t limit, int64_t scale, int64_t used, int64_t demand) noexcept;

// The factor a memory limit is multiplied by: the vendor's memory factor when
// it is above 1, else 1.
constexpr int64_t memory_limit_scale(int32_t memory_factor) noexcept {
  return memory_factor > 1 ? memory_factor : 1;
}

// nullopt when `demand` fits the quota; otherwise the reason, e.g.
// `nvidia.com/gpumem used 1000 + requested 1024 > limit 2000`. Memory
// fails when a limit is set and used + demand > limit × memory_factor
// (factor applied only when > 1); cores when used + demand > limit. Both
// are checked, a zero demand included (a namespace already over its cores
// limit refuses a memory-only pod, as HAMi's quota check does); a demand
// that is empty for both is the caller's to skip.
std::optional<std::string> quota_violation(const NamespaceQuota& quota,
                                           const QuotaResources& resources,
                                           const QuotaDemand& demand);

}  // namespace hami::admission
