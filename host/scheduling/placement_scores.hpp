// The vendors' placement terms of a node score (ABI 1.2, HAMI-HOST-16):
// each vendor the pod requests that implements score_placement scores where
// fit put the pod's containers on the node; the sums travel to the node
// policy in hami_node_usage.vendor_score / vendor_neutral_score.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "plugins/device_plugin_handle.hpp"
#include "scheduling/node_devices.hpp"
#include "scheduling/node_fit.hpp"
#include "scheduling/pod_requests.hpp"
#include "scheduling/usage_ledger.hpp"

namespace hami::scheduling {

// Whether any vendor the pod requests scores placements: the node's fit
// must then record its placements.
bool scores_placements(std::span<const host::DevicePluginHandle> plugins,
                       const PodRequests& requests);

// Adds the vendor terms for `fit` (with its placements recorded) on the
// node of `devices`, whose usage before the pod is `usage`, to `out`. A
// vendor whose call fails adds nothing; its message is appended to
// `errors` ("; "-separated) for the caller to log.
void add_placement_scores(std::span<const host::DevicePluginHandle> plugins,
                          const PodRequests& requests, const hami_pod_view& pod,
                          std::string_view node_policy, const NodeDevices& devices,
                          const NodeUse& usage, const NodeFit& fit, hami_node_usage& out,
                          std::string& errors);

}  // namespace hami::scheduling
