// One element of HAMi's `vnpus.configs` device-config list: the NPU chip
// whose vendor word (`commonWord`) this plugin instance schedules. HAMi
// registers one vendor per element; here each is its own plugin entry, as
// iluvatar.so does for `iluvatars`.
//
// The section-level `vnpus.hamiVnpuCore` (whether a node that has not written
// the `hami-vnpu-core` annotation supports soft split) reaches the instance
// as an optional `hamiVnpuCore` key of the element itself (default false):
// each entry that should assume soft split on such nodes sets it.
//
// Defaults: a key left out or null takes the chart's value for the vendor
// word when the word is one of the chart's seven entries (Ascend910A,
// Ascend910B2, Ascend910B3, Ascend910B4-1, Ascend910B4, Ascend310P,
// Ascend910C); `{}` is the chart's first entry, Ascend910A. Any other word
// has no chart entry: resource names follow the chart's pattern
// (huawei.com/<CW>, -memory, -core), memoryAllocatable is then required and
// memoryCapacity defaults to it.
#ifndef HAMI_DEVICES_ASCEND_CONFIG_HPP
#define HAMI_DEVICES_ASCEND_CONFIG_HPP

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hami::devices::ascend {

// JSON Schema, draft 4. Unknown keys are allowed and ignored, as in HAMi.
extern const char* const kConfigSchema;

// A hard-split template (HAMi's Template). Only name and memory are used by
// the scheduler; aiCore and aiCPU are read by the node side.
struct VnpuTemplate {
  std::string name;
  std::int64_t memory_mib = 0;
  std::int64_t ai_core = 0;
  std::int64_t ai_cpu = 0;
};

struct AscendConfig {
  std::string common_word;      // e.g. "Ascend910B3"
  std::string chip_name;        // read by the node side only
  std::string count_resource;   // resourceName, huawei.com/<CW>
  std::string memory_resource;  // resourceMemoryName, MiB
  std::string cores_resource;   // resourceCoreName, percent; "" = not configured
  std::int64_t memory_allocatable = 0;
  std::int64_t memory_capacity = 0;
  std::int32_t memory_factor = 1;  // as configured; 0 and 1 both mean unscaled
  std::string runtime_class;
  bool overwrite_env = false;
  bool super_pod = false;
  bool hami_vnpu_core = false;
  std::vector<VnpuTemplate> templates;  // ascending by memory (stable)
  // Derived from the vendor word, as HAMi's InitDevices does.
  std::string register_annotation;      // hami.io/node-register-<CW>
  std::string handshake_annotation;     // hami.io/node-handshake-<CW>
  std::string to_allocate_annotation;   // hami.io/<CW>-devices-to-allocate
  std::string allocated_annotation;     // hami.io/<CW>-devices-allocated
  std::string use_uuid_annotation;      // hami.io/use-<CW>-uuid
  std::string nouse_uuid_annotation;    // hami.io/no-use-<CW>-uuid
  std::string runtime_info_annotation;  // huawei.com/<CW>

  // memoryFactor as requests apply it: >= 1.
  std::int32_t effective_memory_factor() const noexcept {
    return memory_factor > 1 ? memory_factor : 1;
  }
  // The vendor words whose NPUs carry a NetworkID (HCCS rings) and whose
  // placements HAMi scores: those starting with "Ascend910".
  bool network_topology() const noexcept;
  // Ascend910C: NPUs 2k and 2k+1 form one module.
  bool module_pairs() const noexcept;
};

// Throws InvalidInput with the schema violation or a missing required value.
AscendConfig parse_config(std::string_view json);

// The smallest template whose memory is at least `memory_mib` (HAMi's
// trimMemory), or nullptr when none is that large.
const VnpuTemplate* template_for(const AscendConfig& config, std::int64_t memory_mib) noexcept;

}  // namespace hami::devices::ascend

#endif  // HAMI_DEVICES_ASCEND_CONFIG_HPP
