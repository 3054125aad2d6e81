// YAML → JSON conversion for plugin config sections.
//
// Typing follows the YAML 1.2 core schema, applied to plain (unquoted,
// untagged) scalars only: null/~/empty → null, true/false (any of the three
// capitalisations) → bool, decimal/0x/0o integers → int, decimal floats →
// number. Quoted or tagged scalars always stay strings, as do .inf and .nan
// (JSON has no spelling for them). Mapping keys become strings.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace hami::config {

// The default bound on one conversion's output. Aliases let a few hundred
// bytes of YAML stand for gigabytes of JSON (each `*a` is expanded).
inline constexpr std::size_t kMaxYamlJsonBytes = 64U << 20;

// Throws ConfigError "<file>: <path>: ..." when a mapping key is not a
// scalar (the only YAML shape JSON cannot hold), when the document nests
// too deeply or when the JSON would exceed `max_bytes`.
std::string yaml_to_json(const YAML::Node& node, std::string_view file, std::string_view path,
                         std::size_t max_bytes = kMaxYamlJsonBytes);

}  // namespace hami::config
