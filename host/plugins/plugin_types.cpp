#include "plugins/plugin_types.hpp"

namespace hami::host {

std::string kind_name(uint32_t kind) {
  switch (kind) {
    case HAMI_KIND_DEVICE:
      return "device";
    case HAMI_KIND_ADMISSION:
      return "admission";
    case HAMI_KIND_SCHEDULING:
      return "scheduling";
    default:
      return "unknown kind " + std::to_string(kind);
  }
}

std::string abi_version_text(uint16_t major, uint16_t minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

PluginSummary summarize(const std::string& configured_name, const PluginInfo& info) {
  return PluginSummary{configured_name,
                       info.name,
                       kind_name(info.kind),
                       info.version,
                       abi_version_text(info.abi_major, info.abi_minor),
                       info.library};
}

}  // namespace hami::host
