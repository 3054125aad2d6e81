// A pod's usage of devices as the ledger counts it: HAMi's init-container
// collapse (§5.2, pkg/device/initContainer.go) applied to the devices its
// allocation annotations (or this process's reservation) name.
//
// Per vendor and device id:
//   memory = max(max over init containers, sum over app containers), same
//   for cores; slots = max(1 if an init container used it, number of app
//   container entries naming it, 1).
// Once every init container has succeeded the pod shrinks to its app
// containers: sums, slots = number of app container entries naming the device, and
// devices only init containers used drop out.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/cluster_state.hpp"
#include "plugins/device_plugin_handle.hpp"

namespace hami::scheduling {

// A pod write a reservation made: what it stores, how to take it back, and
// whether its outcome is known.
struct PodWrite {
  cluster::PodMetadataPatch patch;  // the annotations and labels written
  // Removes every key the write set, conditional on each value it wrote
  // being unchanged.
  cluster::PodMetadataPatch undo;
  // The resourceVersion of the pod the write was judged against.
  std::string judged_version;
  // The write failed in a way that may have stored it (5xx, timeout) and
  // the pod could not be read back: the reservation counts until a version
  // of the pod newer than `judged_version` settles it — one that carries
  // the write (stored), or one the write can no longer be stored on (not
  // stored: see scheduler_feed.cpp) — or the pod's next bind replaces it.
  bool unconfirmed = false;
};

struct DeviceCharge {
  uint32_t vendor = 0;
  std::string device_id;
  int32_t slots = 0;
  int64_t memory_mib = 0;
  int64_t cores = 0;
  // What the pod holds on the device for a vendor that records pick data
  // (HAMI-HOST-12): one entry per allocation entry, its data or "".
  std::vector<std::string> holds;
  friend bool operator==(const DeviceCharge&, const DeviceCharge&) = default;
};

// Per vendor: the memory and cores a pod holds in total (quota accounting).
struct VendorTotals {
  int64_t memory_mib = 0;
  int64_t cores = 0;
};

struct PodCharge {
  std::string uid;
  std::string namespace_;
  std::string name;
  std::string node;
  std::vector<DeviceCharge> devices;
  // Made by this process (filter-mode reservation or a bind in flight) and
  // not yet confirmed by the pod's annotations.
  bool reservation = false;
  // Collapsed to app containers after the init containers succeeded.
  bool shrunk = false;
  // A reservation's only: the allocation the pod still carries on the
  // server (an earlier attempt's) until the write that replaces it lands.
  // That write may fail, so both count; on one node, each device counts
  // the larger of the two. Empty held_node: none.
  std::string held_node;
  std::vector<DeviceCharge> held_devices;
  // A reservation's only: the pod write that stores it, when one was made.
  std::shared_ptr<const PodWrite> write;

  // Whether the charge counts anything on `node_name`.
  bool on(std::string_view node_name) const {
    return node == node_name || (!held_node.empty() && held_node == node_name);
  }
  // Sums of memory and cores per vendor (size = vendor count) of `devices`:
  // quotas count what the pod will hold, not what it is leaving.
  std::vector<VendorTotals> totals(size_t vendor_count) const;
};

// Per device, the larger slots, memory and cores of `a` and `b`; devices
// of only one of them as they are.
std::vector<DeviceCharge> larger_of(const std::vector<DeviceCharge>& a,
                                    const std::vector<DeviceCharge>& b);

// Calls f(const DeviceCharge&) for each device charge `charge` counts on
// `node_name`.
template <class F>
void for_each_charged(const PodCharge& charge, std::string_view node_name, F&& f) {
  const bool own = charge.node == node_name;
  const bool held = !charge.held_node.empty() && charge.held_node == node_name;
  if (own && held) {
    for (const DeviceCharge& d : larger_of(charge.devices, charge.held_devices))
      f(d);
  } else if (own) {
    for (const DeviceCharge& d : charge.devices)
      f(d);
  } else if (held) {
    for (const DeviceCharge& d : charge.held_devices)
      f(d);
  }
}

// One vendor's allocation of a pod: one segment per container, init first.
struct VendorAllocation {
  uint32_t vendor = 0;
  host::PodAllocation containers;
  // The vendor records pick data: every entry becomes a hold on its device.
  bool holds = false;
};

// Collapses the allocations into device charges. A vendor's holds are every
// entry's data, of init and app containers alike, also once the pod has
// shrunk (a device only init containers used then keeps a charge of zero
// that carries its non-empty holds). `init_count` is the pod's
// number of init containers (segments beyond the allocation's length are
// treated as empty); `shrunk` applies the app-only rule.
std::vector<DeviceCharge> collapse(const std::vector<VendorAllocation>& allocations,
                                   size_t init_count, bool shrunk);

}  // namespace hami::scheduling
