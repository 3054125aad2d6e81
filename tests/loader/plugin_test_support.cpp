#include "plugin_test_support.hpp"

#include <stdlib.h>

#include <cerrno>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "fixture_paths.h"

namespace hami::test {
namespace fs = std::filesystem;

namespace {
constexpr fs::perms kDirPerms = fs::perms::owner_all | fs::perms::group_read |
                                fs::perms::group_exec | fs::perms::others_read |
                                fs::perms::others_exec;
}  // namespace

TempPluginDir::TempPluginDir() {
  std::string pattern = (fs::temp_directory_path() / "hami-plugin-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
  }
  path_ = pattern;
  fs::permissions(path_, kDirPerms, fs::perm_options::replace);
}

TempPluginDir::~TempPluginDir() {
  std::error_code ec;
  // Restore write permission first in case a test locked something down.
  fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
  fs::remove_all(path_, ec);
}

fs::path TempPluginDir::add(std::string_view file_name, std::string_view as) const {
  const fs::path target = path_ / (as.empty() ? file_name : as);
  fs::create_directories(target.parent_path());
  for (fs::path dir = target.parent_path(); dir != path_ && dir.has_relative_path();
       dir = dir.parent_path()) {
    fs::permissions(dir, kDirPerms, fs::perm_options::replace);
  }
  fs::copy_file(fs::path(HAMI_FIXTURE_PLUGIN_DIR) / file_name, target,
                fs::copy_options::overwrite_existing);
  fs::permissions(target, kDirPerms, fs::perm_options::replace);
  return target;
}

RecordingServices::RecordingServices()
    : services_(
          [this](int32_t level, std::string_view source, std::string_view message) {
            const std::lock_guard lock(mutex_);
            lines_.push_back(LogLine{level, std::string(source), std::string(message)});
          },
          [this] {
            const std::lock_guard lock(mutex_);
            return now_;
          }) {}

std::vector<LogLine> RecordingServices::lines() const {
  const std::lock_guard lock(mutex_);
  return lines_;
}

std::vector<std::string> RecordingServices::messages_containing(std::string_view needle) const {
  std::vector<std::string> found;
  for (const auto& line : lines()) {
    if (line.message.find(needle) != std::string::npos) {
      found.push_back(line.message);
    }
  }
  return found;
}

void RecordingServices::set_now(int64_t now) {
  const std::lock_guard lock(mutex_);
  now_ = now;
}

host::PluginSpec spec(std::string name, std::string library, uint32_t kind, std::string config) {
  return host::PluginSpec{std::move(name), std::move(library), kind, std::move(config)};
}

}  // namespace hami::test
