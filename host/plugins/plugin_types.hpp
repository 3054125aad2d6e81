// Plain data of the plugin layer: what to load (PluginSpec), where from
// (LoaderOptions), and what a loaded plugin declared (PluginInfo,
// PluginSummary).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "hami/plugin.h"

namespace hami::host {

// One configured plugin.
struct PluginSpec {
  std::string name;         // the configured name; used in logs and errors
  std::string library;      // bare file name → inside the plugin directory;
                            // a relative or absolute path may not escape it
  uint32_t kind = 0;        // HAMI_KIND_* of the config slot it is listed in
  std::string config_json;  // JSON object text; empty means "{}"
};

struct LoaderOptions {
  std::filesystem::path directory;  // the only place plugins load from
  bool allow_writable = false;      // development: load group/world-writable
                                    // files with a warning instead of refusing
};

// What a loaded plugin declared in negotiation, copied out of the library.
struct PluginInfo {
  std::string name;  // the plugin's own name (hami_plugin_info.name)
  std::string version;
  std::string description;
  std::string config_schema;
  uint32_t kind = 0;
  uint16_t abi_major = 0;
  uint16_t abi_minor = 0;
  uint32_t flags = 0;
  std::filesystem::path library;  // the canonical file that was loaded
};

// One line of `--list-plugins` / `--check-config`.
struct PluginSummary {
  std::string name;         // configured name
  std::string plugin_name;  // the plugin's own name
  std::string kind;         // "device", "admission", "scheduling"
  std::string version;      // plugin version
  std::string abi_version;  // "1.0": the ABI the plugin was built against
  std::filesystem::path file;
};

// "device", "admission", "scheduling"; "unknown kind <n>" otherwise.
std::string kind_name(uint32_t kind);

// "<major>.<minor>".
std::string abi_version_text(uint16_t major, uint16_t minor);

PluginSummary summarize(const std::string& configured_name, const PluginInfo& info);

}  // namespace hami::host
