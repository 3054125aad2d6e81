// Strict readers for one YAML document: each read checks the node's shape
// and throws ConfigError "<file>: <key path>: <what is wrong>" otherwise.
// Internal to hami_config.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>

namespace hami::config {

class YamlReader {
 public:
  // `file` is how messages name the document; `base_dir` is where relative
  // paths resolve.
  YamlReader(std::string file, std::filesystem::path base_dir);

  const std::string& file() const { return file_; }

  // Parses YAML text; syntax errors name the line and column.
  YAML::Node parse(const std::string& text) const;

  [[noreturn]] void fail(std::string_view path, std::string_view what) const;

  // Throws unless `node` is a mapping whose keys are all in `allowed` and
  // appear once. A Null node (an empty section) is accepted.
  void expect_mapping(const YAML::Node& node, std::string_view path,
                      std::initializer_list<std::string_view> allowed) const;
  void expect_sequence(const YAML::Node& node, std::string_view path) const;

  std::string string(const YAML::Node& node, std::string_view path, bool allow_empty) const;
  bool boolean(const YAML::Node& node, std::string_view path) const;
  // An integer within [min, max].
  int64_t integer(const YAML::Node& node, std::string_view path, int64_t min, int64_t max) const;
  // A decimal number (integer or fraction) within [min, max].
  double number(const YAML::Node& node, std::string_view path, double min, double max) const;
  // A path; relative ones resolve against base_dir. Empty stays empty.
  std::filesystem::path path(const YAML::Node& node, std::string_view key_path) const;
  // One of `choices`.
  std::string choice(const YAML::Node& node, std::string_view path,
                     std::initializer_list<std::string_view> choices) const;

  std::filesystem::path resolve(const std::filesystem::path& p) const;

 private:
  std::string file_;
  std::filesystem::path base_dir_;
};

// How a node is shown after "got": a scalar JSON-quoted, otherwise its kind.
std::string describe_node(const YAML::Node& node);

// "a.b" + "c" → "a.b.c"; "" + "c" → "c".
std::string join_path(std::string_view parent, std::string_view key);

}  // namespace hami::config
