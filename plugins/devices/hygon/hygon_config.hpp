// The `hygon` section of HAMi's device config, with HAMi's chart defaults
// for keys the operator leaves out.
#ifndef HAMI_DEVICES_HYGON_CONFIG_HPP
#define HAMI_DEVICES_HYGON_CONFIG_HPP

#include <cstdint>
#include <string>
#include <string_view>

namespace hami::devices::hygon {

// JSON Schema, draft 4. Unknown keys are allowed and ignored, as in HAMi.
extern const char* const kConfigSchema;

struct HygonConfig {
  std::string count_resource = "hygon.com/dcunum";
  std::string memory_resource = "hygon.com/dcumem";   // MiB (× memory_factor)
  std::string cores_resource = "hygon.com/dcucores";  // percent
  // Memory requests are multiplied by it; 0 and 1 mean no scaling.
  std::int32_t memory_factor = 1;
};

// Throws InvalidInput with the schema violation.
HygonConfig parse_config(std::string_view json);

}  // namespace hami::devices::hygon

#endif  // HAMI_DEVICES_HYGON_CONFIG_HPP
