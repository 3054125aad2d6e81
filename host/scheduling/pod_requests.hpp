// What a pod asks of each vendor, per container, as the device plugins read
// its resources (HAMi §5.1). Computed once per filter/bind call.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "hami/device.h"
#include "plugins/device_plugin_handle.hpp"

namespace hami::scheduling {

struct VendorRequest {
  uint32_t vendor = 0;  // index into the device plugin list
  hami_device_request request{};
};

struct ContainerRequests {
  std::vector<VendorRequest> vendors;  // count > 0 only, by vendor index
};

struct PodRequests {
  std::vector<ContainerRequests> containers;  // the pod's containers, init first
  size_t init_count = 0;
  std::vector<bool> vendor_used;      // any container asks this vendor
  bool any = false;                   // any container asks any vendor
  std::vector<std::string> warnings;  // plugins' messages for unusable values

  // Whether an app container (not only init containers) asks for `vendor`.
  bool app_uses(uint32_t vendor) const;
};

// Asks every device plugin about every container. PluginCallError
// propagates (a plugin failing is not "no request").
PodRequests collect_requests(std::span<const host::DevicePluginHandle> devices,
                             const hami_pod_view& pod);

}  // namespace hami::scheduling
