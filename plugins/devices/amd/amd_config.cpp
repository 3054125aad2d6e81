#include "amd_config.hpp"

#include "config_document.hpp"

namespace hami::devices::amd {

const char* const kConfigSchema = R"json({
  "$schema": "http://json-schema.org/draft-04/schema#",
  "title": "amd device plugin (HAMi device-config.yaml section 'amd')",
  "type": "object",
  "properties": {
    "resourceCountName": {"type": ["string", "null"], "default": "amd.com/gpu",
      "description": "resource holding the number of GPUs per container"},
    "resourceMemoryName": {"type": ["string", "null"], "default": "amd.com/gpumem",
      "description": "resource holding MiB per GPU"},
    "resourceCoreName": {"type": ["string", "null"], "default": "amd.com/gpucores",
      "description": "resource holding the percent of each GPU's compute units"},
    "customresources": {"type": ["array", "null"], "items": {"type": "string"},
      "description": "chart-level list of forwarded resources, accepted and ignored"}
  }
})json";

AmdConfig parse_config(std::string_view json) {
  const ConfigDocument doc(json, kConfigSchema);
  AmdConfig c;
  read_share_resources(doc, c);
  return c;
}

}  // namespace hami::devices::amd
