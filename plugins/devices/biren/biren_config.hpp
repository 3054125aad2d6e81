// The `biren` section of HAMi's device config, with HAMi's chart default.
// Biren shares cards by count only: there is no memory or core resource.
#ifndef HAMI_DEVICES_BIREN_CONFIG_HPP
#define HAMI_DEVICES_BIREN_CONFIG_HPP

#include <string>
#include <string_view>

namespace hami::devices::biren {

// JSON Schema, draft 4. Unknown keys are allowed and ignored, as in HAMi.
extern const char* const kConfigSchema;

struct BirenConfig {
  std::string count_resource = "birentech.com/gpu";
};

// Throws InvalidInput with the schema violation.
BirenConfig parse_config(std::string_view json);

}  // namespace hami::devices::biren

#endif  // HAMI_DEVICES_BIREN_CONFIG_HPP
