// The `vastai` section of HAMi's device config, with HAMi's chart default.
// Vastai shares cards (or dies) by count only: there is no memory or core
// resource.
#ifndef HAMI_DEVICES_VASTAI_CONFIG_HPP
#define HAMI_DEVICES_VASTAI_CONFIG_HPP

#include <string>
#include <string_view>

namespace hami::devices::vastai {

// JSON Schema, draft 4. Unknown keys are allowed and ignored, as in HAMi.
extern const char* const kConfigSchema;

struct VastaiConfig {
  std::string count_resource = "vastaitech.com/va";
};

// Throws InvalidInput with the schema violation.
VastaiConfig parse_config(std::string_view json);

}  // namespace hami::devices::vastai

#endif  // HAMI_DEVICES_VASTAI_CONFIG_HPP
