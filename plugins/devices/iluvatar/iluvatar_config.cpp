#include "iluvatar_config.hpp"

#include "config_document.hpp"

namespace hami::devices::iluvatar {

const char* const kConfigSchema = R"json({
  "$schema": "http://json-schema.org/draft-04/schema#",
  "title": "iluvatar device plugin (one element of HAMi device-config.yaml 'iluvatars')",
  "type": "object",
  "properties": {
    "commonWord": {"type": ["string", "null"], "default": "MR-V100", "minLength": 1,
      "pattern": "^[^,:;/]+$",
      "description": "vendor word: device types contain it, annotation keys are built from it"},
    "chipName": {"type": ["string", "null"],
      "description": "chip model, read by the node-side plugin only"},
    "resourceCountName": {"type": ["string", "null"],
      "description": "resource holding the number of GPUs (default iluvatar.ai/<commonWord>-vgpu)"},
    "resourceMemoryName": {"type": ["string", "null"],
      "description": "resource holding 256 MiB units per GPU (default iluvatar.ai/<commonWord>.vMem)"},
    "resourceCoreName": {"type": ["string", "null"],
      "description": "resource holding the percent of each GPU (default iluvatar.ai/<commonWord>.vCore)"},
    "customresources": {"type": ["array", "null"], "items": {"type": "string"},
      "description": "chart-level list of forwarded resources, accepted and ignored"}
  }
})json";

IluvatarConfig parse_config(std::string_view json) {
  const ConfigDocument doc(json, kConfigSchema);
  IluvatarConfig c;
  c.common_word = doc.string_or("commonWord", "MR-V100");
  const std::string& cw = c.common_word;
  c.chip_name = doc.string_or("chipName", cw);
  c.count_resource = "iluvatar.ai/" + cw + "-vgpu";
  c.memory_resource = "iluvatar.ai/" + cw + ".vMem";
  c.cores_resource = "iluvatar.ai/" + cw + ".vCore";
  read_share_resources(doc, c);
  c.register_annotation = "hami.io/node-" + cw + "-register";
  c.handshake_annotation = "hami.io/node-handshake-" + cw;
  c.to_allocate_annotation = "hami.io/" + cw + "-devices-to-allocate";
  c.allocated_annotation = "hami.io/" + cw + "-devices-allocated";
  c.use_uuid_annotation = "hami.io/use-" + cw + "-uuid";
  c.nouse_uuid_annotation = "hami.io/no-use-" + cw + "-uuid";
  return c;
}

}  // namespace hami::devices::iluvatar
