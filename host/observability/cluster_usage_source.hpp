// ClusterUsageSource: the read-only view of device inventories, allocations
// and quotas that HAMi's cluster metrics (reference hami-v2.10 §1.7) are
// computed from at scrape time. One call returns one consistent copy, so
// the collector never holds a lock of the scheduling path while it formats.
//
// Units are the scheduler's: memory in MiB, cores as the vendor reports
// them (percent for NVIDIA, compute units for AMD); the collector converts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hami::observability {

// A MIG instance in use on a device, with its runtime identity (known once
// the device plugin has created it).
struct MigInstanceUsage {
  std::string mig_uuid;
  std::string profile;  // e.g. "1g.10gb"
  int64_t gpu_instance_id = 0;
  int64_t compute_instance_id = 0;
  int64_t placement_start = 0;
  int64_t placement_size = 0;
};

struct DeviceUsage {
  std::string uuid;
  uint32_t index = 0;
  std::string type;  // as registered ("NVIDIA A100-SXM4-40GB", "AMD Instinct MI300X VF")
  std::string mode;  // "hami-core", "mig", "mps"; empty = hami-core
  int64_t memory_total_mib = 0;
  int64_t cores_total = 0;
  int64_t slots_used = 0;  // allocation slots (HAMi's Used)
  int64_t memory_used_mib = 0;
  int64_t cores_used = 0;
  std::vector<MigInstanceUsage> mig_instances;
};

struct NodeUsage {
  std::string name;
  std::vector<DeviceUsage> devices;
};

// What one container of a pod holds on one device.
struct ContainerDeviceUsage {
  // Position of the container in the pod, init containers first — the
  // segment of the allocation annotation it came from (HAMi bug 7.7#9
  // reported 0 for every container).
  uint32_t container_index = 0;
  std::string device_uuid;
  int64_t memory_mib = 0;
  int64_t cores = 0;
};

struct PodUsage {
  std::string namespace_;
  std::string name;
  std::string node;
  std::vector<ContainerDeviceUsage> devices;
};

// One managed resource's usage in a namespace (HAMi's quota cache entry).
struct QuotaUsage {
  std::string namespace_;
  std::string resource;  // e.g. "nvidia.com/gpumem"
  int64_t used = 0;
  std::optional<int64_t> limit;  // set only when a ResourceQuota sets it
};

struct ClusterUsage {
  std::vector<NodeUsage> nodes;
  std::vector<PodUsage> pods;
  std::vector<QuotaUsage> quotas;
};

class ClusterUsageSource {
 public:
  virtual ~ClusterUsageSource() = default;
  // A copy of the current state. Called from scrapes, concurrently.
  virtual ClusterUsage usage() const = 0;
};

}  // namespace hami::observability
