// The NUMA refit (POST /refit): the node-side device plugin asks to move one
// container's devices onto devices the kubelet's Topology Manager allows.
// The rules, in the order they are judged, are in docs/refit.md; every
// refusal changes nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hami::scheduling {

// At most this many allowed devices per request (HAMi's limit).
inline constexpr size_t kRefitMaxAllowedDevices = 512;

struct RefitRequest {
  std::string pod_uid;
  std::string pod_namespace;
  std::string pod_name;
  std::string node_name;
  int64_t container_index = 0;  // init containers first
  std::string container_name;   // "" = not checked
  std::string device_type;      // a device plugin's vendor name, e.g. "NVIDIA"
  std::vector<std::string> allowed_device_uuids;
};

struct RefitOutcome {
  bool succeeded = false;
  // The container's devices in the vendor's segment encoding ("" on failure).
  std::string container_devices;
  std::string failure_reason;  // "" on success
};

}  // namespace hami::scheduling
