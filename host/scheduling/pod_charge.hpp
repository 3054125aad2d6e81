// A pod's usage of devices as the ledger counts it: HAMi's init-container
// collapse (§5.2, pkg/device/initContainer.go) applied to the devices its
// allocation annotations (or this process's reservation) name.
//
// Per vendor and device id:
//   memory = max(max over init containers, sum over app containers), same
//   for cores; slots = max(1 if an init container used it, number of app
//   containers using it, 1).
// Once every init container has succeeded the pod shrinks to its app
// containers: sums, slots = number of app containers using the device, and
// devices only init containers used drop out.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "plugins/device_plugin_handle.hpp"

namespace hami::scheduling {

struct DeviceCharge {
  uint32_t vendor = 0;
  std::string device_id;
  int32_t slots = 0;
  int64_t memory_mib = 0;
  int64_t cores = 0;
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

  // Sums of memory and cores per vendor (size = vendor count).
  std::vector<VendorTotals> totals(size_t vendor_count) const;
};

// One vendor's allocation of a pod: one segment per container, init first.
struct VendorAllocation {
  uint32_t vendor = 0;
  host::PodAllocation containers;
};

// Collapses the allocations into device charges. `init_count` is the pod's
// number of init containers (segments beyond the allocation's length are
// treated as empty); `shrunk` applies the app-only rule.
std::vector<DeviceCharge> collapse(const std::vector<VendorAllocation>& allocations,
                                   size_t init_count, bool shrunk);

}  // namespace hami::scheduling
