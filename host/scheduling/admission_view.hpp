// The admission webhook's view of the cluster (admission/cluster_view.hpp):
// namespace device quotas with the usage the scheduler's ledger counts, and
// namespace labels from the cluster state.
#pragma once

#include <span>

#include "admission/cluster_view.hpp"
#include "cluster/cluster_state.hpp"
#include "plugins/device_plugin_handle.hpp"
#include "scheduling/usage_ledger.hpp"

namespace hami::scheduling {

class LedgerAdmissionView final : public admission::AdmissionClusterView {
 public:
  // Everything must outlive the view.
  LedgerAdmissionView(const UsageLedger& ledger, const cluster::ClusterState& cluster,
                      std::span<const host::DevicePluginHandle> plugins)
      : ledger_(ledger), cluster_(cluster), plugins_(plugins) {}

  std::optional<admission::NamespaceQuota> quota(std::string_view ns) const override;
  std::optional<std::string> namespace_label(std::string_view ns,
                                             std::string_view key) const override;

 private:
  const UsageLedger& ledger_;
  const cluster::ClusterState& cluster_;
  std::span<const host::DevicePluginHandle> plugins_;
};

}  // namespace hami::scheduling
