// Loading the host configuration file (interfaces §C).
//
// Strict: unknown keys, duplicate keys, wrong types and out-of-range values
// are errors; every error is a ConfigError whose message names the file, the
// key path and what is wrong. Device plugin entries without an inline
// `config` get their section of plugins.deviceConfigFile (HAMi's device
// config, keyed by plugin name) as JSON, or "{}" when there is none.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "config/config_error.hpp"
#include "config/host_config.hpp"

namespace hami::config {

// Reads and validates `file`. Messages name the file as given.
HostConfig load_config(const std::filesystem::path& file);

// Validates YAML text as if it were the content of `file` (relative paths
// resolve against the file's folder; referenced files are read).
HostConfig parse_config(const std::string& yaml_text, const std::filesystem::path& file);

// Command-line values that win over the file.
struct Overrides {
  std::optional<std::string> listen;                // --listen ADDR:PORT: the webhook listener
  std::optional<std::filesystem::path> plugin_dir;  // --plugin-dir DIR (relative to the cwd)
  std::optional<std::string> cluster;               // --cluster kubernetes | file:PATH
};

// Applies `overrides`; a malformed --listen throws ConfigError
// `--listen: expected ADDR:PORT (...), got "..."`. --listen moves the
// webhook listener only, unless the file shares its socket with the
// extender listener (extender.listen equal to listen): then the shared
// socket moves, and must stay on loopback (listener_rules.hpp); a broken
// rule throws ConfigError "--listen: <why>".
void apply_overrides(HostConfig& config, const Overrides& overrides);

// --cluster: "kubernetes" selects the API server (the file's
// cluster.kubernetes settings apply); "file:PATH" selects that snapshot
// (PATH relative to the cwd, must be readable) and turns leader election off.
// Anything else throws ConfigError `--cluster: expected kubernetes or
// file:PATH, got "..."`.
void apply_cluster_override(ClusterConfig& cluster, std::string_view value);

// Fills the config_json of every plugin entry without an inline `config`:
// a device plugin's from its section of plugins.deviceConfigFile (read
// again), else "{}". `key` names the device-config file in errors.
void resolve_plugin_configs(PluginsConfig& plugins,
                            std::string_view key = "plugins.deviceConfigFile");

// Reads a whole file; throws ConfigError "<key>: cannot read \"<path>\": <reason>".
std::string read_text_file(const std::filesystem::path& path, std::string_view what);

}  // namespace hami::config
