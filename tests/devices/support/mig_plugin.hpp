// nvidia.so driven through the ABI 1.1 calls MIG scheduling uses: describe's
// 1.1 members, device attributes from decode_node, fit with holds and
// set_pick_data, annotate_allocation, decode_pod_allocation and
// describe_partitions. The library is opened with dlopen and called through
// its raw vtable (raw_device_plugin.hpp), as a 1.1 host calls it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hami/device.h"
#include "k8s_views.hpp"
#include "raw_device_plugin.hpp"

namespace hami::testing {

// One migProfiles entry of a registration.
struct MigProfileSpec {
  std::string name;
  std::int32_t memory_mb = 0;
  std::int32_t core = 0;
  std::uint32_t slice_count = 0;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> placements;  // start, size
};

// HAMi's a100MigProfiles() (mig_capability_test.go).
std::vector<MigProfileSpec> a100_mig_profiles();

// One device object of hami.io/node-nvidia-register in MIG mode.
std::string mig_register_device(const std::string& id, std::int32_t count, std::int32_t devmem,
                                const std::vector<MigProfileSpec>& profiles,
                                const std::string& mode = "mig");

// A decoded device as the host keeps it.
struct RawDevice {
  std::string id;
  std::string type;
  std::string mode;
  std::string attributes;
  std::uint32_t index = 0;
  std::int32_t count = 0;
  std::int64_t memory_mib = 0;
  std::int32_t cores = 0;
  std::int32_t numa = 0;
  std::uint32_t flags = 0;
};

// A device offered to fit: its record, usage and holds.
struct OfferedDevice {
  RawDevice device;
  std::int32_t used = 0;
  std::int64_t used_memory_mib = 0;
  std::int32_t used_cores = 0;
  std::vector<std::string> holds;
};

struct MigFitOutcome {
  bool fits = false;
  std::string reason;
  std::vector<hami_fit_pick> picks;
  std::vector<std::string> ids;   // picked devices, in pick order
  std::vector<std::string> data;  // pick data, "" when none was recorded
};

// One device of an allocation handed to annotate_allocation or reported by
// decode_pod_allocation.
struct Placed {
  std::string id;
  std::string type = "NVIDIA";
  std::int64_t memory_mib = 0;
  std::int32_t cores = 0;
  std::uint32_t index = 0;
  std::string data;
  friend bool operator==(const Placed&, const Placed&) = default;
};
using PlacedPod = std::vector<std::vector<Placed>>;

struct AnnotationOp {
  bool set = false;  // false: remove
  std::string key;
  std::string value;
  friend bool operator==(const AnnotationOp&, const AnnotationOp&) = default;
};

struct Partition {
  std::size_t family = 0;
  std::string device;
  std::vector<std::string> values;
  friend bool operator==(const Partition&, const Partition&) = default;
};

class MigPlugin {
 public:
  explicit MigPlugin(const std::string& config_json = "{}");

  hami_device_description describe() const;

  // Throws RawCallError.
  std::vector<RawDevice> decode_node(NodeFixture& node) const;
  // The devices of a registration annotation value on a node.
  std::vector<RawDevice> decode_register(const std::string& value) const;

  // `record_data` false: the output has no set_pick_data (a 1.0 host).
  MigFitOutcome fit(const std::vector<OfferedDevice>& devices, PodFixture& pod,
                    const hami_device_request& request, std::uint32_t policy_flags = 0,
                    const hami_quota_hook* quota = nullptr, bool record_data = true,
                    const std::vector<PairScoreSpec>& scores = {}) const;

  std::vector<AnnotationOp> annotate(PodFixture& pod, const PlacedPod& containers) const;
  PlacedPod decode_pod(PodFixture& pod) const;
  std::vector<Partition> partitions(PodFixture& pod) const;

 private:
  std::unique_ptr<RawLibrary> library_;
  std::unique_ptr<RawInstance> instance_;
};

// The device of a single-device registration, offered with `holds`.
OfferedDevice offered(const MigPlugin& plugin, const std::string& device_json,
                      std::vector<std::string> holds = {});

}  // namespace hami::testing
