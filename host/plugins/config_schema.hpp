// Validates a plugin's config document against the JSON Schema the plugin
// declares (draft 4, as RapidJSON's SchemaValidator implements it) before
// the plugin ever sees it (HAMI-HOST-5).
#pragma once

#include <string>
#include <string_view>

namespace hami::host {

// Returns the config text to pass to `create`: `config_json` itself, or "{}"
// when it is empty. Throws PluginLoadError ConfigRejected, its message
// starting with `label`, when the schema is not a JSON object, the config
// is not a JSON object, or the config breaks the schema — then naming the
// JSON pointer of the offending value and the schema keyword:
//   "config rejected by schema at /defaultMemory: keyword 'type'".
// An empty schema means "any JSON object".
std::string validate_plugin_config(std::string_view label, std::string_view schema_json,
                                   std::string_view config_json);

}  // namespace hami::host
