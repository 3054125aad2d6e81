// The `cambricon` section of HAMi's device config, with HAMi's chart
// defaults for keys the operator leaves out.
#ifndef HAMI_DEVICES_CAMBRICON_CONFIG_HPP
#define HAMI_DEVICES_CAMBRICON_CONFIG_HPP

#include <string>
#include <string_view>

namespace hami::devices::cambricon {

// JSON Schema, draft 4. Unknown keys are allowed and ignored, as in HAMi.
extern const char* const kConfigSchema;

struct CambriconConfig {
  std::string count_resource = "cambricon.com/vmlu";
  std::string memory_resource = "cambricon.com/mlu.smlu.vmemory";  // 256 MiB units
  std::string cores_resource = "cambricon.com/mlu.smlu.vcore";     // percent of one card
};

// Throws InvalidInput with the schema violation.
CambriconConfig parse_config(std::string_view json);

}  // namespace hami::devices::cambricon

#endif  // HAMI_DEVICES_CAMBRICON_CONFIG_HPP
