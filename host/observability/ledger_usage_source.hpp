// LedgerUsageSource: the ClusterUsageSource of a running hami-scheduler,
// read from the Scheduler's usage ledger, the cluster state and the device
// plugins — through their public interfaces only.
//
// Per scrape:
//  - under the ledger's shared (reader) lock, which filter calls also take
//    and only binds and cluster updates wait for: copies every known node's
//    devices with their usage (devices of a vendor whose last health check
//    failed are left out, as HAMi drops them from its device cache), the
//    uid, name and node of every pod charge, and the namespaces' quota
//    usage and limits;
//  - after releasing it: reads every pod from the cluster state once, and
//    decodes each charged pod's allocation annotations with the vendor's
//    plugin, to
//    report each container with its real index (init containers first;
//    once a pod's init containers have succeeded only its app containers
//    hold devices, so only they are reported). A pod whose annotations are
//    not written yet (a bind in flight) or do not decode has no
//    per-container series until they are;
//  - each charged pod's partitions, from every vendor's describe_partitions
//    over the pod's view, attached to that vendor's device of the pod's
//    node with the id the partition names (others are ignored; a vendor
//    whose call fails reports nothing for that pod), with the families of
//    every vendor's description. Which partitions are reported (e.g. only
//    those whose runtime identity is known) is the vendor's choice;
//  - each device's cores unit, from its vendor's description.
//
// Quotas: one entry per namespace and managed resource (a vendor's memory
// and cores resource names) that has usage or a limit set.
#pragma once

#include <span>

#include "cluster/cluster_state.hpp"
#include "observability/cluster_usage_source.hpp"
#include "plugins/device_plugin_handle.hpp"
#include "scheduling/scheduler.hpp"

namespace hami::observability {

class LedgerUsageSource final : public ClusterUsageSource {
 public:
  // Everything must outlive the source; `devices` are the plugins the
  // scheduler was built with, in the same order.
  LedgerUsageSource(const scheduling::Scheduler& scheduler, const cluster::ClusterState& cluster,
                    std::span<const host::DevicePluginHandle> devices);

  ClusterUsage usage() const override;

 private:
  const scheduling::Scheduler& scheduler_;
  const cluster::ClusterState& cluster_;
  std::span<const host::DevicePluginHandle> devices_;
};

}  // namespace hami::observability
