// Namespace device quotas from ResourceQuota objects (HAMi §7.3): every
// spec.hard entry "limits.<resource>" where <resource> is some vendor's
// memory or cores resource and the value is a whole number. When several
// quotas of a namespace set the same key the smallest wins (Kubernetes
// requires every quota to hold; HAMi kept the last one seen).
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "cluster/cluster_state.hpp"
#include "plugins/device_plugin_handle.hpp"
#include "scheduling/usage_ledger.hpp"

namespace hami::scheduling {

StringMap<std::vector<QuotaLimits>> quota_limits(
    std::span<const cluster::ResourceQuotaRecord> quotas,
    std::span<const host::DevicePluginHandle> plugins);

// Whether `used + demand` stays within the limits (memory limits scale by
// the vendor's memory factor when > 1). Unset limits always fit.
bool quota_allows(const QuotaLimits& limits, int32_t memory_factor, const VendorTotals& used,
                  int64_t memory_mib, int64_t cores);

}  // namespace hami::scheduling
