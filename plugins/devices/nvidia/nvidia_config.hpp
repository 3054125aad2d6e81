// The `nvidia` section of HAMi's device config (§1.9), with HAMi's chart
// defaults for every key the operator leaves out (or sets to null).
#ifndef HAMI_DEVICES_NVIDIA_CONFIG_HPP
#define HAMI_DEVICES_NVIDIA_CONFIG_HPP

#include <cstdint>
#include <string>
#include <string_view>

namespace hami::devices::nvidia {

// JSON Schema, draft 4. Every key HAMi's scheduler or its NVIDIA device
// plugin reads is declared with its type; other keys are allowed and ignored,
// as HAMi's YAML reader ignores them, so one device-config.yaml can serve
// both HAMi's node components and this scheduler.
extern const char* const kConfigSchema;

struct NvidiaConfig {
  std::string count_resource = "nvidia.com/gpu";
  std::string memory_resource = "nvidia.com/gpumem";
  std::string memory_percent_resource = "nvidia.com/gpumem-percentage";
  std::string cores_resource = "nvidia.com/gpucores";
  std::string priority_resource = "nvidia.com/priority";
  bool overwrite_env = false;
  std::int32_t default_memory = 0;   // MiB
  std::int32_t default_cores = 0;    // percent
  std::int32_t default_gpu_num = 1;  // 0 disables count injection
  std::int32_t memory_factor = 1;    // 0 in the file means 1
  std::string gpu_core_policy = "default";
  std::string runtime_class_name;
};

// Throws InvalidInput with the schema violation.
NvidiaConfig parse_config(std::string_view json);

}  // namespace hami::devices::nvidia

#endif  // HAMI_DEVICES_NVIDIA_CONFIG_HPP
