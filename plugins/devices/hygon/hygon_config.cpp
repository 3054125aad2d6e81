#include "hygon_config.hpp"

#include "config_document.hpp"

namespace hami::devices::hygon {

const char* const kConfigSchema = R"json({
  "$schema": "http://json-schema.org/draft-04/schema#",
  "title": "hygon device plugin (HAMi device-config.yaml section 'hygon')",
  "type": "object",
  "properties": {
    "resourceCountName": {"type": ["string", "null"], "default": "hygon.com/dcunum",
      "description": "resource holding the number of DCUs per container"},
    "resourceMemoryName": {"type": ["string", "null"], "default": "hygon.com/dcumem",
      "description": "resource holding MiB per DCU (before memoryFactor)"},
    "resourceCoreName": {"type": ["string", "null"], "default": "hygon.com/dcucores",
      "description": "resource holding the percent of each DCU's compute"},
    "memoryFactor": {"type": ["integer", "null"], "minimum": 0, "maximum": 2147483647,
      "default": 1, "description": "memory requests are multiplied by it (0 or 1: unscaled)"},
    "customresources": {"type": ["array", "null"], "items": {"type": "string"},
      "description": "chart-level list of forwarded resources, accepted and ignored"}
  }
})json";

HygonConfig parse_config(std::string_view json) {
  const ConfigDocument doc(json, kConfigSchema);
  HygonConfig c;
  read_share_resources(doc, c);
  c.memory_factor = static_cast<std::int32_t>(doc.int_or("memoryFactor", c.memory_factor));
  return c;
}

}  // namespace hami::devices::hygon
