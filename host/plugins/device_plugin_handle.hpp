// DevicePluginHandle: the host's side of one device plugin instance
// (nvidia.so, amd.so). Every method calls the plugin under the instance's
// call lock (unless it is HAMI_FLAG_CONCURRENT_SAFE), copies what the
// plugin reports into host-owned values, and validates it.
//
// Errors: PluginCallError — "<name>.<function>: <plugin message>" with the
// plugin's status — when a call fails or its output breaks the contract
// (status HAMI_INTERNAL). Host-side misuse (an index out of range) is
// std::invalid_argument.
//
// Threading: all methods are const and may be called from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hami/device.h"
#include "plugins/plugin_instance.hpp"
#include "plugins/plugin_types.hpp"

namespace hami::host {

class CallProblems;
class ErrorBuffer;

// hami_metric_family, copied (ABI 1.1).
struct PartitionMetric {
  std::string name;
  std::string help;
  std::vector<std::string> labels;  // after the host's device labels
  bool legacy = false;
};

// hami_device_description, copied. Empty strings: not used by this vendor.
struct DeviceDescription {
  std::string vendor;
  std::string count_resource;
  std::string memory_resource;
  std::string memory_percent_resource;
  std::string cores_resource;
  std::string priority_resource;
  std::string register_annotation;
  std::string handshake_annotation;
  std::string to_allocate_annotation;
  std::string allocated_annotation;
  int32_t memory_factor = 1;
  // ABI 1.1; a 1.0 plugin reads as the defaults.
  uint32_t cores_unit = HAMI_CORES_PERCENT;
  uint32_t vendor_flags = 0;                        // HAMI_VENDOR_*
  std::vector<std::string> allocation_annotations;  // written by annotate_allocation
  std::vector<PartitionMetric> partition_metrics;
  uint32_t node_lock = HAMI_NODE_LOCK_SHARED;
  // ABI 1.2: with node_lock HAMI_NODE_LOCK_OWN, the vendor's own lock.
  std::string own_lock_annotation;
  int64_t own_lock_expiry_seconds = 0;

  bool takes_node_lock() const { return node_lock == HAMI_NODE_LOCK_SHARED; }
  bool takes_own_lock() const { return node_lock == HAMI_NODE_LOCK_OWN; }

  bool multi_pick() const { return (vendor_flags & HAMI_VENDOR_MULTI_PICK) != 0; }
  bool reads_placed() const { return (vendor_flags & HAMI_VENDOR_READS_PLACED) != 0; }
};

// What mutate_container asked for, in call order.
struct ContainerMutation {
  bool uses_device = false;
  std::vector<std::pair<std::string, std::string>> limits;           // resource → quantity
  std::vector<std::pair<std::string, std::string>> env;              // name → value
  std::optional<std::string> runtime_class;                          // last one set wins
  std::vector<std::pair<std::string, std::string>> requests;         // resource → quantity (1.1)
  std::vector<std::pair<std::string, std::string>> pod_annotations;  // key → value (1.1)
};

struct RequestResult {
  hami_device_request request{};  // count 0: no request
  std::string warning;            // the plugin's INVALID_ARGUMENT message
};

struct DeviceRecord {
  std::string id, type, mode;
  uint32_t index = 0;
  int32_t count = 0;
  int64_t memory_mib = 0;
  int32_t cores = 0;
  int32_t numa = 0;
  uint32_t flags = 0;      // HAMI_DEVICE_*
  std::string attributes;  // ABI 1.1, opaque
};

struct PairScoreRecord {
  std::string from, to;
  int32_t score = 0;
};

struct NodeInventory {
  std::vector<DeviceRecord> devices;
  std::vector<PairScoreRecord> pair_scores;
};

// One annotation change the plugin asks for; nullopt value = remove.
struct AnnotationWrite {
  std::string key;
  std::optional<std::string> value;
};

struct HealthResult {
  bool healthy = false;
  bool needs_update = false;
  std::vector<AnnotationWrite> writes;
};

struct FitResult {
  bool fits = false;
  size_t picks_len = 0;  // entries of the caller's picks span filled
  std::string reason;    // HAMi's reason text when it does not fit
  // ABI 1.1: per pick (picks_len entries when the plugin recorded any,
  // else empty), the vendor data set_pick_data recorded; "" for none.
  std::vector<std::string> pick_data;
};

struct AllocDevice {
  std::string id, type;
  int64_t memory_mib = 0;
  int32_t cores = 0;
  uint32_t index = 0;  // registered index (0 when decoded from a pod)
  std::string data;    // ABI 1.1 pick data; "" for none
  friend bool operator==(const AllocDevice&, const AllocDevice&) = default;
};
using PodAllocation = std::vector<std::vector<AllocDevice>>;  // one entry per container segment

// The vendor's term of a node score (ABI 1.2, score_placement).
struct PlacementScore {
  double score = 0;
  bool policy_neutral = false;
};

// One partition describe_partitions reported (ABI 1.1).
struct PartitionRecord {
  size_t family = 0;  // index into DeviceDescription::partition_metrics
  std::string device_id;
  std::vector<std::string> values;  // one per label of the family
};

class DevicePluginHandle {
 public:
  // Used by the loader: takes over an instance created from a device
  // vtable (copied, zero-extended to this host's size) and asks it to
  // describe itself. Throws PluginCallError when describe fails or returns
  // an unusable description.
  DevicePluginHandle(PluginInstance instance, const hami_device_vtable& vtable);

  DevicePluginHandle(DevicePluginHandle&&) noexcept = default;
  DevicePluginHandle& operator=(DevicePluginHandle&&) noexcept = default;

  // The configured name.
  [[nodiscard]] const std::string& name() const noexcept { return instance_.name(); }
  [[nodiscard]] const PluginInfo& info() const noexcept { return instance_.info(); }
  [[nodiscard]] const DeviceDescription& description() const noexcept { return description_; }

  // Admission defaults for container `idx`. A denial (the plugin's
  // HAMI_INVALID_ARGUMENT) is PluginCallError with that status and message.
  [[nodiscard]] ContainerMutation mutate_container(const hami_pod_view& pod, size_t idx) const;

  // Container `idx`'s demand; HAMI_INVALID_ARGUMENT is not an error here:
  // the request is count 0 and `warning` carries the plugin's message.
  [[nodiscard]] RequestResult container_request(const hami_pod_view& pod, size_t idx) const;

  // The node's inventory. PluginCallError with HAMI_NOT_FOUND when the node
  // has no registration of this vendor, HAMI_INVALID_ARGUMENT when malformed.
  [[nodiscard]] NodeInventory decode_node(const hami_node_view& node) const;
  // The same, but a node without this vendor's registration is nullopt, not
  // an exception: the scheduler asks every vendor about every node, and most
  // nodes carry one vendor's registration only.
  [[nodiscard]] std::optional<NodeInventory> decode_node_if_registered(
      const hami_node_view& node) const;

  [[nodiscard]] HealthResult node_health(const hami_node_view& node, int64_t now) const;

  // Empty when the plugin does not implement node_cleanup.
  [[nodiscard]] std::vector<AnnotationWrite> node_cleanup(const hami_node_view& node) const;

  // Places one container. `picks` needs at least request->count entries;
  // on return picks[0..picks_len) are filled. Validated: every pick's index
  // is < devices_len and distinct, and fits ⇒ picks_len == request->count.
  // A pick's `type` points into the plugin's static storage or into `in`:
  // copy it before either goes away.
  [[nodiscard]] FitResult fit(const hami_fit_input& in, std::span<hami_fit_pick> picks) const;

  [[nodiscard]] std::string encode_allocation(
      std::span<const hami_container_alloc> containers) const;
  [[nodiscard]] PodAllocation decode_allocation(std::string_view value) const;

  // ---- ABI 1.1 (absent in the plugin: the 1.0 behaviour) ----

  // Whether the plugin reads a pod's allocation itself, with pick data
  // (decode_pod_allocation). Such vendors' allocations are charged as holds
  // (HAMI-HOST-12).
  [[nodiscard]] bool reads_pods() const noexcept {
    return vtable_.decode_pod_allocation != nullptr;
  }
  // The pod's allocation of this vendor; nullopt when it carries none.
  // Requires reads_pods().
  [[nodiscard]] std::optional<PodAllocation> decode_pod_allocation(const hami_pod_view& pod) const;
  // Further annotations for the allocation of `pod` on `node` (empty when
  // the plugin does not implement the call). Every key must be listed in
  // allocation_annotations (else PluginCallError HAMI_INTERNAL).
  [[nodiscard]] std::vector<AnnotationWrite> annotate_allocation(const hami_pod_view& pod,
                                                                 std::string_view node,
                                                                 const PodAllocation& allocation,
                                                                 int64_t now) const;
  // The partitions the pod holds (empty when not implemented). Families and
  // value counts are validated against partition_metrics.
  [[nodiscard]] std::vector<PartitionRecord> describe_partitions(const hami_pod_view& pod) const;

  // ---- ABI 1.2 ----
  // Whether the plugin scores placements (score_placement).
  [[nodiscard]] bool scores_placements() const noexcept {
    return vtable_.score_placement != nullptr;
  }
  // The vendor's term for the pod's placement `allocation` (this vendor's
  // devices per container, init first) on `node`, whose devices of this
  // vendor are `devices` with their usage before the pod. Zero when the
  // plugin does not implement the call. PluginCallError when it fails or
  // reports a score that is not finite.
  [[nodiscard]] PlacementScore score_placement(const hami_pod_view& pod, std::string_view node,
                                               std::string_view node_policy,
                                               std::span<const hami_device_usage> devices,
                                               const PodAllocation& allocation) const;

 private:
  friend class PluginRegistry;
  void release() noexcept { instance_.reset(); }
  void read_description_1_1(const hami_device_description& out, CallProblems& problems);
  void read_description_1_2(const hami_device_description& out, CallProblems& problems);
  // One decode_node call: its status, `result` filled on HAMI_OK.
  hami_status decode_into(const hami_node_view& node, NodeInventory& result,
                          ErrorBuffer& err) const;

  PluginInstance instance_;
  hami_device_vtable vtable_{};
  DeviceDescription description_;
};

}  // namespace hami::host
