// One element of HAMi's `iluvatars` device-config list: the chip whose
// vendor word (`commonWord`) this plugin instance schedules. HAMi registers
// one vendor per element; here each is its own plugin entry. Every name
// HAMi derives from the vendor word is derived here the same way.
#ifndef HAMI_DEVICES_ILUVATAR_CONFIG_HPP
#define HAMI_DEVICES_ILUVATAR_CONFIG_HPP

#include <string>
#include <string_view>

namespace hami::devices::iluvatar {

// JSON Schema, draft 4. Unknown keys are allowed and ignored, as in HAMi.
extern const char* const kConfigSchema;

// Memory requests count 256 MiB units (HAMi's fixed MemoryFactor).
inline constexpr int kMemoryFactor = 256;

struct IluvatarConfig {
  std::string common_word;      // e.g. "BI-V150"
  std::string chip_name;        // read by the node side only
  std::string count_resource;   // iluvatar.ai/<CW>-vgpu
  std::string memory_resource;  // iluvatar.ai/<CW>.vMem, 256 MiB units
  std::string cores_resource;   // iluvatar.ai/<CW>.vCore, percent
  // Derived from the vendor word, as HAMi's InitIluvatarDevice does.
  std::string register_annotation;     // hami.io/node-<CW>-register
  std::string handshake_annotation;    // hami.io/node-handshake-<CW>
  std::string to_allocate_annotation;  // hami.io/<CW>-devices-to-allocate
  std::string allocated_annotation;    // hami.io/<CW>-devices-allocated
  std::string use_uuid_annotation;     // hami.io/use-<CW>-uuid
  std::string nouse_uuid_annotation;   // hami.io/no-use-<CW>-uuid
};

// `commonWord` defaults to MR-V100 (the chart's first entry); resource names
// left out follow the chart's pattern for the vendor word. Throws
// InvalidInput with the schema violation.
IluvatarConfig parse_config(std::string_view json);

}  // namespace hami::devices::iluvatar

#endif  // HAMI_DEVICES_ILUVATAR_CONFIG_HPP
