#include "biren_config.hpp"

#include "config_document.hpp"

namespace hami::devices::biren {

const char* const kConfigSchema = R"json({
  "$schema": "http://json-schema.org/draft-04/schema#",
  "title": "biren device plugin (HAMi device-config.yaml section 'biren')",
  "type": "object",
  "properties": {
    "resourceCountName": {"type": ["string", "null"], "default": "birentech.com/gpu",
      "description": "resource holding the number of GPUs per container"},
    "customresources": {"type": ["array", "null"], "items": {"type": "string"},
      "description": "chart-level list of forwarded resources, accepted and ignored"}
  }
})json";

BirenConfig parse_config(std::string_view json) {
  const ConfigDocument doc(json, kConfigSchema);
  BirenConfig c;
  c.count_resource = doc.string_or("resourceCountName", c.count_resource);
  return c;
}

}  // namespace hami::devices::biren
