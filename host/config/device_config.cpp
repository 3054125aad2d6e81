#include "config/device_config.hpp"

#include "config/config_error.hpp"
#include "config/config_loader.hpp"
#include "config/yaml_json.hpp"
#include "config/yaml_reader.hpp"

namespace hami::config {

DeviceConfigFile DeviceConfigFile::load(const std::filesystem::path& path, std::string_view key) {
  const std::string text = read_text_file(path, key);
  const YamlReader reader(path.string(), path.parent_path());
  YAML::Node root = reader.parse(text);
  if (!root.IsNull() && !root.IsMap()) {
    reader.fail(
        "", "expected a mapping of vendor sections at the top level, got " + describe_node(root));
  }
  return DeviceConfigFile(path.string(), std::move(root));
}

std::optional<std::string> DeviceConfigFile::section_json(const std::string& name) const {
  if (!root_.IsMap())
    return std::nullopt;
  const YAML::Node section = root_[name];
  if (!section.IsDefined() || section.IsNull())
    return std::nullopt;
  if (!section.IsMap()) {
    throw ConfigError(file_ + ": " + name + ": expected a mapping, got " + describe_node(section));
  }
  return yaml_to_json(section, file_, name);
}

}  // namespace hami::config
