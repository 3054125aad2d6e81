#include "admission/quota.hpp"

#include <algorithm>
#include <limits>

#include "platform/saturating.hpp"

namespace hami::admission {

namespace {

// Values are never negative here (usage never is; a negative request from a
// plugin counts as 0), so saturating at the top is enough.
using platform::saturating_add;
using platform::saturating_mul;

int64_t non_negative(int64_t v) {
  return v < 0 ? 0 : v;
}

std::optional<std::string> check(const NamespaceQuota& quota, std::string_view resource,
                                 int64_t demand, int64_t factor) {
  if (resource.empty())
    return std::nullopt;
  const auto limit = quota.hard.find(resource);
  if (limit == quota.hard.end())
    return std::nullopt;
  const auto used_it = quota.used.find(resource);
  const int64_t used = used_it == quota.used.end() ? 0 : non_negative(used_it->second);
  if (within_limit(limit->second, factor, used, demand))
    return std::nullopt;
  std::string reason(resource);
  reason += " used " + std::to_string(used) + " + requested " + std::to_string(demand) +
            " > limit " + std::to_string(limit->second);
  if (factor > 1)
    reason += " x memory factor " + std::to_string(factor);
  return reason;
}

}  // namespace

bool within_limit(int64_t limit, int64_t scale, int64_t used, int64_t demand) noexcept {
  return saturating_add(non_negative(used), non_negative(demand)) <=
         saturating_mul(non_negative(limit), non_negative(scale));
}

QuotaDemand pod_demand(std::span<const hami_device_request> requests, size_t init_count) {
  QuotaDemand app;
  QuotaDemand init;
  for (size_t i = 0; i < requests.size(); ++i) {
    const hami_device_request& r = requests[i];
    if (r.count <= 0)
      continue;
    const int64_t memory = saturating_mul(r.count, non_negative(r.memory_mib));
    const int64_t cores = saturating_mul(r.count, non_negative(r.cores));
    if (i < init_count) {
      init.memory_mib = std::max(init.memory_mib, memory);
      init.cores = std::max(init.cores, cores);
    } else {
      app.memory_mib = saturating_add(app.memory_mib, memory);
      app.cores = saturating_add(app.cores, cores);
    }
  }
  return {std::max(app.memory_mib, init.memory_mib), std::max(app.cores, init.cores)};
}

std::optional<std::string> quota_violation(const NamespaceQuota& quota,
                                           const QuotaResources& resources,
                                           const QuotaDemand& demand) {
  const int64_t factor = memory_limit_scale(resources.memory_factor);
  if (auto memory = check(quota, resources.memory, demand.memory_mib, factor))
    return memory;
  return check(quota, resources.cores, demand.cores, 1);
}

}  // namespace hami::admission
