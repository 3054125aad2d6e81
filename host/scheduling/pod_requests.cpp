#include "scheduling/pod_requests.hpp"

namespace hami::scheduling {

bool PodRequests::app_uses(uint32_t vendor) const {
  for (size_t i = init_count; i < containers.size(); ++i) {
    for (const VendorRequest& r : containers[i].vendors) {
      if (r.vendor == vendor)
        return true;
    }
  }
  return false;
}

PodRequests collect_requests(std::span<const host::DevicePluginHandle> devices,
                             const hami_pod_view& pod) {
  PodRequests out;
  out.containers.resize(pod.containers_len);
  out.init_count = pod.init_count;
  out.vendor_used.assign(devices.size(), false);
  for (size_t c = 0; c < pod.containers_len; ++c) {
    for (size_t v = 0; v < devices.size(); ++v) {
      host::RequestResult result = devices[v].container_request(pod, c);
      if (!result.warning.empty())
        out.warnings.push_back(std::move(result.warning));
      if (result.request.count <= 0)
        continue;
      out.containers[c].vendors.push_back({static_cast<uint32_t>(v), result.request});
      out.vendor_used[v] = true;
      out.any = true;
    }
  }
  return out;
}

}  // namespace hami::scheduling
