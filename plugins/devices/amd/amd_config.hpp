// The `amd` section of HAMi's device config (§1.9), with HAMi's chart
// defaults for keys the operator leaves out.
#ifndef HAMI_DEVICES_AMD_CONFIG_HPP
#define HAMI_DEVICES_AMD_CONFIG_HPP

#include <string>
#include <string_view>

namespace hami::devices::amd {

// JSON Schema, draft 4. Unknown keys are allowed and ignored, as in HAMi.
extern const char* const kConfigSchema;

struct AmdConfig {
  std::string count_resource = "amd.com/gpu";
  std::string memory_resource = "amd.com/gpumem";   // MiB
  std::string cores_resource = "amd.com/gpucores";  // percent of the CUs
};

// Throws InvalidInput with the schema violation.
AmdConfig parse_config(std::string_view json);

}  // namespace hami::devices::amd

#endif  // HAMI_DEVICES_AMD_CONFIG_HPP
