// Where a configured plugin's file is, and whether it is safe to load.
#pragma once

#include <filesystem>

#include "plugins/host_services.hpp"
#include "plugins/plugin_types.hpp"

namespace hami::host {

// The canonical path of `spec.library` inside `options.directory`: a bare
// name or relative path resolves against the directory, an absolute path is
// taken as given; either way the result (symlinks resolved) must lie inside
// the directory. Throws PluginLoadError: OutsideDirectory when it escapes,
// CannotOpen when the directory or file does not exist or is not a file.
std::filesystem::path resolve_plugin_file(const LoaderOptions& options, const PluginSpec& spec);

// Refuses (PluginLoadError InsecureFile) a plugin file, or any directory
// from the plugin directory down to it, that is group- or world-writable or
// owned by anyone but root or the user the host runs as — anyone who can
// write there can run code in the host. With
// options.allow_writable it logs a warning instead.
void check_plugin_file_security(const LoaderOptions& options, const PluginSpec& spec,
                                const std::filesystem::path& file, const HostServices& services);

}  // namespace hami::host
