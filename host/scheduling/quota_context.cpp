#include <algorithm>

#include "scheduling/node_fit.hpp"

namespace hami::scheduling {

std::optional<QuotaContext> quota_context(const LedgerState& state,
                                          std::span<const host::DevicePluginHandle> plugins,
                                          std::string_view ns, const PodCharge* own) {
  const auto* limits = state.namespace_limits(ns);
  if (limits == nullptr)
    return std::nullopt;
  QuotaContext q;
  q.limits = *limits;
  q.used.assign(plugins.size(), {});
  if (const auto* used = state.namespace_used(ns))
    q.used = *used;
  if (own != nullptr && own->namespace_ == ns) {
    const auto mine = own->totals(plugins.size());
    for (size_t v = 0; v < plugins.size(); ++v) {
      q.used[v].memory_mib = std::max<int64_t>(0, q.used[v].memory_mib - mine[v].memory_mib);
      q.used[v].cores = std::max<int64_t>(0, q.used[v].cores - mine[v].cores);
    }
  }
  for (const auto& p : plugins)
    q.memory_factor.push_back(p.description().memory_factor);
  return q;
}

}  // namespace hami::scheduling
