// The per-node pipeline of HAMi §5.3: fit a pod's containers onto one
// node's devices against a copy of the node's usage.
//
//   - init containers, each against a fresh copy of the usage (they run one
//     after another);
//   - app containers one by one against one working copy, each seeing the
//     devices the previous ones took;
//   - per container and vendor: device scores (§5.4, with the pod's
//     weights), the device policy's try order and fit flags, then the
//     vendor's fit; the chosen devices' usage is added.
//
// The usage passed in must already exclude the pod's own earlier charge
// (a re-filter releases it).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "plugins/device_plugin_handle.hpp"
#include "plugins/scheduling_plugin_handle.hpp"
#include "scheduling/node_devices.hpp"
#include "scheduling/pod_requests.hpp"
#include "scheduling/scoring_weights.hpp"
#include "scheduling/usage_ledger.hpp"

namespace hami::scheduling {

inline constexpr std::string_view kNodeInsufficientDevice = "NodeInsufficientDevice";
inline constexpr std::string_view kNodeUnregistered = "node unregistered";

// The namespace quota as fit sees it: limits and the usage of every other
// pod of the namespace, per vendor.
struct QuotaContext {
  std::vector<QuotaLimits> limits;
  std::vector<VendorTotals> used;
  std::vector<int32_t> memory_factor;
};

// The namespace quota as fit sees it for the pod of `ns` whose own charge
// is `own` (may be null): the limits and every other pod's usage; nullopt
// when the namespace has no device quota.
std::optional<QuotaContext> quota_context(const LedgerState& state,
                                          std::span<const host::DevicePluginHandle> plugins,
                                          std::string_view ns, const PodCharge* own);

// Everything about the pod that is the same on every node.
struct PodFitInput {
  const hami_pod_view* pod = nullptr;
  const PodRequests* requests = nullptr;
  std::span<const host::DevicePluginHandle> plugins;
  ScoringWeights weights;
  std::string device_policy;                                    // full policy text
  const host::SchedulingPluginHandle* device_plugin = nullptr;  // null: registration order
  const QuotaContext* quota = nullptr;                          // null: not enforced
  // Whether NodeFit::containers is filled. Filtering only needs the
  // verdict; a reservation needs the devices.
  bool record_placements = true;
  // Per vendor, per device (VendorDevices order): the devices fit may
  // choose from; a vendor beyond its size, or null, allows every device
  // (the NUMA refit restricts a container to the devices the node allows).
  const std::vector<std::vector<bool>>* allowed = nullptr;
};

// One device a container takes.
struct Placement {
  uint32_t vendor = 0;
  size_t device = 0;  // index in VendorDevices::abi
  std::string id;
  std::string type;  // as fit wrote it (the annotation's TYPE)
  int64_t memory_mib = 0;
  int32_t cores = 0;
  uint32_t index = 0;  // the device's registered index
  std::string data;    // the pick's vendor data (ABI 1.1); "" for none
};

struct NodeFit {
  bool fits = false;
  // Retrying cannot help on this node (no registration, too few devices).
  bool unresolvable = false;
  std::string reason;
  std::vector<std::vector<Placement>> containers;  // per pod container
};

// A pod's running totals for one vendor while it is being placed (for the
// quota hook): the peak of its init containers, the sum of its app
// containers so far.
struct PodTotals {
  int64_t init_peak_memory = 0;
  int64_t init_peak_cores = 0;
  int64_t app_memory = 0;
  int64_t app_cores = 0;
};

// Buffers fit_node reuses from node to node (one per thread), so walking
// thousands of candidates does not allocate per node.
struct FitScratch {
  NodeUse working;
  NodeUse fresh;
  std::vector<hami_device_usage> device_usage;
  std::vector<hami_device_usage> tried;
  std::vector<hami_order_device> order_input;
  std::vector<hami_fit_pick> picks;
  std::vector<size_t> order;
  std::vector<PodTotals> totals;  // per vendor
  // Holds passed to fit (vendors that record pick data), and the pod's own
  // picks of the current phase: (vendor, device, data).
  std::vector<hami_str> hold_items;
  std::vector<hami_str> empty_items;  // a run of "" shared by devices holding only those
  std::vector<char> hold_merged;      // per tried device: its holds are in hold_items
  std::vector<hami_holds> holds;
  std::vector<size_t> order_starts;
  std::vector<std::tuple<uint32_t, size_t, std::string>> own_holds;
  // Vendors with HAMI_VENDOR_READS_PLACED (HAMI-HOST-17): the picks of each
  // container of the current phase (by container index), and the arrays
  // fit_input.placed points into.
  std::vector<std::vector<Placement>> phase_picks;
  std::vector<hami_placed_device> placed_devices;
  std::vector<hami_placed_container> placed_containers;
};

// `holds`: what the node's charges hold per device (NodeEntry::holds,
// without the pod's own earlier charge); nullptr = none.
NodeFit fit_node(const PodFitInput& input, const NodeDevices& devices,
                 const std::vector<bool>& healthy, const NodeUse& usage, FitScratch& scratch,
                 const NodeHolds* holds = nullptr);
NodeFit fit_node(const PodFitInput& input, const NodeDevices& devices,
                 const std::vector<bool>& healthy, const NodeUse& usage,
                 const NodeHolds* holds = nullptr);

// The node's usage summed over all its devices, before the pod.
hami_node_usage summarize_usage(const NodeDevices& devices, const std::vector<bool>& healthy,
                                const NodeUse& usage);

// `usage` minus what `charge` counts on the devices' node (for a pod
// re-filtered on a node it holds).
void subtract_charge(const NodeDevices& devices, NodeUse& usage, const PodCharge& charge);

}  // namespace hami::scheduling
