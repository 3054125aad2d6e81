// Test support for loading fixture plugins: a private plugin directory with
// controlled permissions, and HostServices that record what plugins log.
#pragma once

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "plugins/host_services.hpp"
#include "plugins/plugin_types.hpp"

namespace hami::test {

// A fresh directory (mode 0755) under the system temp dir, removed again on
// destruction. Fixture plugins are copied in (mode 0755), so permission
// checks never depend on the build tree's umask.
class TempPluginDir {
 public:
  TempPluginDir();
  ~TempPluginDir();
  TempPluginDir(const TempPluginDir&) = delete;
  TempPluginDir& operator=(const TempPluginDir&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

  // Copies the built fixture `file_name` (e.g. "ok_noop.so") to `as` inside
  // the directory (default: same name); returns the copy's path.
  std::filesystem::path add(std::string_view file_name, std::string_view as = {}) const;

  [[nodiscard]] host::LoaderOptions options(bool allow_writable = false) const {
    return host::LoaderOptions{path_, allow_writable};
  }

 private:
  std::filesystem::path path_;
};

struct LogLine {
  int32_t level;
  std::string source;
  std::string message;
};

// HostServices whose log lines are kept for assertions and whose clock
// reads a settable value.
class RecordingServices {
 public:
  RecordingServices();

  host::HostServices& services() noexcept { return services_; }
  [[nodiscard]] std::vector<LogLine> lines() const;
  // Messages (in order) that contain `needle`.
  [[nodiscard]] std::vector<std::string> messages_containing(std::string_view needle) const;
  void set_now(int64_t now);

 private:
  mutable std::mutex mutex_;
  std::vector<LogLine> lines_;
  int64_t now_ = 1'700'000'000;
  host::HostServices services_;
};

// A spec with the fixture file as library.
host::PluginSpec spec(std::string name, std::string library, uint32_t kind,
                      std::string config = "{}");

}  // namespace hami::test
