#include "cambricon_config.hpp"

#include "config_document.hpp"

namespace hami::devices::cambricon {

const char* const kConfigSchema = R"json({
  "$schema": "http://json-schema.org/draft-04/schema#",
  "title": "cambricon device plugin (HAMi device-config.yaml section 'cambricon')",
  "type": "object",
  "properties": {
    "resourceCountName": {"type": ["string", "null"], "default": "cambricon.com/vmlu",
      "description": "resource holding the number of MLUs per container"},
    "resourceMemoryName": {"type": ["string", "null"], "default": "cambricon.com/mlu.smlu.vmemory",
      "description": "resource holding the memory per MLU in units of 256 MiB; also the node capacity of all MLU memory"},
    "resourceCoreName": {"type": ["string", "null"], "default": "cambricon.com/mlu.smlu.vcore",
      "description": "resource holding the percent of each MLU's compute; also the node capacity (100 per MLU)"},
    "customresources": {"type": ["array", "null"], "items": {"type": "string"},
      "description": "chart-level list of forwarded resources, accepted and ignored"}
  }
})json";

CambriconConfig parse_config(std::string_view json) {
  const ConfigDocument doc(json, kConfigSchema);
  CambriconConfig c;
  read_share_resources(doc, c);
  return c;
}

}  // namespace hami::devices::cambricon
