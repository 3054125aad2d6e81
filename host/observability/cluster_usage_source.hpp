// ClusterUsageSource: the read-only view of device inventories, allocations
// and quotas that HAMi's cluster metrics (reference hami-v2.10 §1.7) are
// computed from at scrape time. One call returns one consistent copy, so
// the collector never holds a lock of the scheduling path while it formats.
//
// Units are the scheduler's: memory in MiB, cores as the vendor reports
// them (percent, or a count of compute units when the vendor describes
// HAMI_CORES_COUNT); the collector converts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hami::observability {

// An info metric family a vendor declares for its partitions
// (hami_device_description.partition_metrics): every series carries the
// device labels, then `labels`, and the value 1.
struct PartitionFamily {
  std::string name;
  std::string help;
  std::vector<std::string> labels;  // after the device labels
  bool legacy = false;              // emitted only with the legacy names on
};

// One partition a pod holds on a device, as the vendor's
// describe_partitions reports it.
struct PartitionUsage {
  size_t family = 0;                // index into ClusterUsage::partition_families
  std::vector<std::string> values;  // one per label of the family
};

struct DeviceUsage {
  std::string uuid;
  uint32_t index = 0;
  std::string type;  // as registered
  std::string mode;  // as registered; empty = hami-core
  int64_t memory_total_mib = 0;
  int64_t cores_total = 0;
  int64_t slots_used = 0;  // allocation slots (HAMi's Used)
  int64_t memory_used_mib = 0;
  int64_t cores_used = 0;
  // The vendor counts cores (HAMI_CORES_COUNT): cores_total is the
  // device's number of compute units. Otherwise they are percent.
  bool cores_count = false;
  std::vector<PartitionUsage> partitions;
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
  // Every vendor's partition families, in plugin order.
  std::vector<PartitionFamily> partition_families;
};

class ClusterUsageSource {
 public:
  virtual ~ClusterUsageSource() = default;
  // A copy of the current state. Called from scrapes, concurrently.
  virtual ClusterUsage usage() const = 0;
};

}  // namespace hami::observability
