#include "scheduling/quota_limits.hpp"

#include <algorithm>

#include "admission/quota.hpp"
#include "hami/quantity.hpp"

namespace hami::scheduling {

namespace {

std::optional<int64_t> whole_number(std::string_view text) {
  const auto q = hami::Quantity::parse(text);
  if (!q)
    return std::nullopt;
  return q->as_int64();
}

void keep_smallest(std::optional<int64_t>& slot, int64_t value) {
  slot = slot ? std::min(*slot, value) : value;
}

}  // namespace

StringMap<std::vector<QuotaLimits>> quota_limits(
    std::span<const cluster::ResourceQuotaRecord> quotas,
    std::span<const host::DevicePluginHandle> plugins) {
  StringMap<std::vector<QuotaLimits>> out;
  constexpr std::string_view kPrefix = "limits.";
  for (const cluster::ResourceQuotaRecord& q : quotas) {
    for (const auto& [key, value] : q.hard) {
      if (key.size() <= kPrefix.size() || key.compare(0, kPrefix.size(), kPrefix) != 0)
        continue;
      const std::string_view resource = std::string_view(key).substr(kPrefix.size());
      const auto limit = whole_number(value);
      if (!limit)
        continue;
      for (size_t v = 0; v < plugins.size(); ++v) {
        const host::DeviceDescription& d = plugins[v].description();
        const bool memory = !d.memory_resource.empty() && resource == d.memory_resource;
        const bool cores = !d.cores_resource.empty() && resource == d.cores_resource;
        if (!memory && !cores)
          continue;
        auto& limits = out[q.namespace_];
        limits.resize(plugins.size());
        keep_smallest(memory ? limits[v].memory_mib : limits[v].cores, *limit);
      }
    }
  }
  return out;
}

bool quota_allows(const QuotaLimits& limits, int32_t memory_factor, const VendorTotals& used,
                  int64_t memory_mib, int64_t cores) {
  if (limits.memory_mib &&
      !admission::within_limit(*limits.memory_mib, admission::memory_limit_scale(memory_factor),
                               used.memory_mib, memory_mib))
    return false;
  return !limits.cores || admission::within_limit(*limits.cores, 1, used.cores, cores);
}

}  // namespace hami::scheduling
