#include "plugins/plugin_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <system_error>
#include <vector>

#include "plugins/plugin_errors.hpp"

namespace hami::host {
namespace fs = std::filesystem;
namespace {

std::string describe(const PluginSpec& spec) {
  return "plugin '" + spec.name + "'";
}

// Lexically inside `base` (and not `base` itself).
bool lexically_within(const fs::path& path, const fs::path& base) {
  const fs::path rel = path.lexically_normal().lexically_relative(base.lexically_normal());
  return !rel.empty() && *rel.begin() != ".." && rel != ".";
}

std::string mode_text(fs::perms perms) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(perms) & 07777u);
  return text;
}

}  // namespace

fs::path resolve_plugin_file(const LoaderOptions& options, const PluginSpec& spec) {
  if (options.directory.empty()) {
    throw PluginLoadError(PluginErrorKind::CannotOpen,
                          describe(spec) + " (" + spec.library + "): no plugin directory is set");
  }
  if (spec.library.empty()) {
    throw PluginLoadError(PluginErrorKind::CannotOpen,
                          describe(spec) + ": no library file is configured");
  }
  std::error_code ec;
  const fs::path directory = fs::canonical(options.directory, ec);
  if (ec) {
    throw PluginLoadError(PluginErrorKind::CannotOpen,
                          describe(spec) + " (" + spec.library + "): plugin directory " +
                              options.directory.string() + " cannot be opened: " + ec.message());
  }

  const fs::path requested(spec.library);
  const fs::path candidate = requested.is_absolute() ? requested.lexically_normal()
                                                     : (directory / requested).lexically_normal();
  if (!lexically_within(candidate, directory) && !lexically_within(candidate, options.directory)) {
    throw PluginLoadError(PluginErrorKind::OutsideDirectory,
                          describe(spec) + " (" + spec.library + "): " + candidate.string() +
                              " is outside the plugin directory " + directory.string());
  }

  const fs::path file = fs::canonical(candidate, ec);
  if (ec) {
    throw PluginLoadError(PluginErrorKind::CannotOpen, describe(spec) + " (" + candidate.string() +
                                                           "): cannot open: " + ec.message());
  }
  // A symlink inside the directory may still point elsewhere.
  if (!lexically_within(file, directory)) {
    throw PluginLoadError(PluginErrorKind::OutsideDirectory,
                          describe(spec) + " (" + candidate.string() + "): resolves to " +
                              file.string() + ", outside the plugin directory " +
                              directory.string());
  }
  if (!fs::is_regular_file(file, ec)) {
    throw PluginLoadError(PluginErrorKind::CannotOpen,
                          describe(spec) + " (" + file.string() + "): not a regular file");
  }
  return file;
}

void check_plugin_file_security(const LoaderOptions& options, const PluginSpec& spec,
                                const fs::path& file, const HostServices& services) {
  std::error_code ec;
  const fs::path directory = fs::canonical(options.directory, ec);
  if (ec) {
    throw PluginLoadError(PluginErrorKind::CannotOpen,
                          describe(spec) + " (" + file.string() + "): plugin directory " +
                              options.directory.string() + " cannot be opened: " + ec.message());
  }
  // The file itself and every directory from the plugin directory down to it.
  std::vector<fs::path> checked{file};
  for (fs::path dir = file.parent_path(); lexically_within(dir, directory) || dir == directory;
       dir = dir.parent_path()) {
    checked.push_back(dir);
    if (dir == directory) {
      break;
    }
  }
  for (const fs::path& path : checked) {
    const fs::file_status status = fs::status(path, ec);
    if (ec) {
      throw PluginLoadError(PluginErrorKind::CannotOpen, describe(spec) + " (" + file.string() +
                                                             "): cannot stat " + path.string() +
                                                             ": " + ec.message());
    }
    // Owned by root or by the user this host runs as: any other owner can
    // replace the code the host runs.
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && st.st_uid != 0 && st.st_uid != ::geteuid()) {
      const std::string what = (path == file ? "the plugin file " : "the directory ") +
                               path.string() + " is owned by uid " + std::to_string(st.st_uid) +
                               ", neither root nor the service user (uid " +
                               std::to_string(::geteuid()) + ")";
      if (!options.allow_writable) {
        throw PluginLoadError(PluginErrorKind::InsecureFile,
                              describe(spec) + " (" + file.string() + "): " + what +
                                  "; refusing to load it (allowWritable permits this for "
                                  "development)");
      }
      services.log(HAMI_LOG_WARN, "plugins",
                   describe(spec) + " (" + file.string() + "): " + what +
                       "; loading anyway because allowWritable is set");
    }
    const fs::perms perms = status.permissions();
    const bool writable =
        (perms & (fs::perms::group_write | fs::perms::others_write)) != fs::perms::none;
    if (!writable) {
      continue;
    }
    const std::string what = (path == file ? "the plugin file " : "the directory ") +
                             path.string() + " is group- or world-writable (mode " +
                             mode_text(perms) + ")";
    if (!options.allow_writable) {
      throw PluginLoadError(PluginErrorKind::InsecureFile,
                            describe(spec) + " (" + file.string() + "): " + what +
                                "; refusing to load it (allowWritable permits this for "
                                "development)");
    }
    services.log(HAMI_LOG_WARN, "plugins",
                 describe(spec) + " (" + file.string() + "): " + what +
                     "; loading anyway because allowWritable is set");
  }
}

}  // namespace hami::host
