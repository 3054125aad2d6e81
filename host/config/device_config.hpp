// HAMi's device-config file (reference hami-v2.10 §1.9): top-level keys are
// vendor names (nvidia, amd, ...), each a section of vendor settings. HAMi
// ignores keys it does not know, and so do we: each device plugin validates
// its own section against its schema.
#pragma once

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace hami::config {

class DeviceConfigFile {
 public:
  // Reads and parses `path`; `key` names the config key for messages when
  // the file cannot be read. Throws ConfigError.
  static DeviceConfigFile load(const std::filesystem::path& path, std::string_view key);

  // The section for `name` as a JSON object text, or nullopt when the file
  // has no such section (or it is empty). Throws ConfigError when the
  // section is not a mapping.
  std::optional<std::string> section_json(const std::string& name) const;

 private:
  DeviceConfigFile(std::string file, YAML::Node root)
      : file_(std::move(file)), root_(std::move(root)) {}
  std::string file_;
  YAML::Node root_;
};

}  // namespace hami::config
