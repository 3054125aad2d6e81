#include "vastai_config.hpp"

#include "config_document.hpp"

namespace hami::devices::vastai {

const char* const kConfigSchema = R"json({
  "$schema": "http://json-schema.org/draft-04/schema#",
  "title": "vastai device plugin (HAMi device-config.yaml section 'vastai')",
  "type": "object",
  "properties": {
    "resourceCountName": {"type": ["string", "null"], "default": "vastaitech.com/va",
      "description": "resource holding the number of devices (cards or dies) per container"},
    "customresources": {"type": ["array", "null"], "items": {"type": "string"},
      "description": "chart-level list of forwarded resources, accepted and ignored"}
  }
})json";

VastaiConfig parse_config(std::string_view json) {
  const ConfigDocument doc(json, kConfigSchema);
  VastaiConfig c;
  c.count_resource = doc.string_or("resourceCountName", c.count_resource);
  return c;
}

}  // namespace hami::devices::vastai
