// YAML → JSON conversion for plugin config sections.
//
// Typing follows the YAML 1.2 core schema, applied to plain (unquoted,
// untagged) scalars only: null/~/empty → null, true/false (any of the three
// capitalisations) → bool, decimal/0x/0o integers → int, decimal floats →
// number. Quoted or tagged scalars always stay strings, as do .inf and .nan
// (JSON has no spelling for them). Mapping keys become strings.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>

namespace hami::config {

// Throws ConfigError "<file>: <path>: ..." when a mapping key is not a
// scalar (the only YAML shape JSON cannot hold).
std::string yaml_to_json(const YAML::Node& node, std::string_view file, std::string_view path);

}  // namespace hami::config
