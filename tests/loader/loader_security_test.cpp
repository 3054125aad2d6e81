// Plugins load only from the configured directory, and never from files or
// directories others can write to (unless allowWritable says so).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "fixture_paths.h"
#include "load_error.hpp"
#include "plugin_test_support.hpp"
#include "plugins/plugin_errors.hpp"
#include "plugins/plugin_loader.hpp"

namespace hami::test {
namespace {

namespace fs = std::filesystem;
using host::PluginErrorKind;
using ::testing::HasSubstr;

class LoaderSecurity : public ::testing::Test {
 protected:
  host::PluginLoadError error_for(const std::string& library, bool allow_writable = false) {
    return load_error([&] { (void)load(library, allow_writable); });
  }

  host::DevicePluginHandle load(const std::string& library, bool allow_writable = false) {
    return host::load_device_plugin(dir_.options(allow_writable),
                                    spec("secure", library, HAMI_KIND_DEVICE),
                                    recorder_.services());
  }

  TempPluginDir dir_;
  TempPluginDir elsewhere_;
  RecordingServices recorder_;
};

TEST_F(LoaderSecurity, GroupWritableFileIsRefused) {
  const fs::path file = dir_.add(HAMI_FIXTURE_OK_NOOP);
  fs::permissions(file, fs::perms::group_write, fs::perm_options::add);
  const auto e = error_for(HAMI_FIXTURE_OK_NOOP);
  EXPECT_EQ(e.kind(), PluginErrorKind::InsecureFile);
  EXPECT_THAT(e.what(), HasSubstr(file.string()));
  EXPECT_THAT(e.what(), HasSubstr("group- or world-writable (mode 0775)"));
  EXPECT_THAT(e.what(), HasSubstr("allowWritable"));
}

TEST_F(LoaderSecurity, WorldWritableFileIsRefused) {
  const fs::path file = dir_.add(HAMI_FIXTURE_OK_NOOP);
  fs::permissions(file, fs::perms::others_write, fs::perm_options::add);
  EXPECT_EQ(error_for(HAMI_FIXTURE_OK_NOOP).kind(), PluginErrorKind::InsecureFile);
}

TEST_F(LoaderSecurity, WritableDirectoryIsRefused) {
  dir_.add(HAMI_FIXTURE_OK_NOOP);
  fs::permissions(dir_.path(), fs::perms::group_write, fs::perm_options::add);
  const auto e = error_for(HAMI_FIXTURE_OK_NOOP);
  EXPECT_EQ(e.kind(), PluginErrorKind::InsecureFile);
  EXPECT_THAT(e.what(), HasSubstr("the directory " + fs::canonical(dir_.path()).string()));
}

TEST_F(LoaderSecurity, WritableSubdirectoryIsRefused) {
  dir_.add(HAMI_FIXTURE_OK_NOOP, "vendor/noop.so");
  fs::permissions(dir_.path() / "vendor", fs::perms::others_write, fs::perm_options::add);
  const auto e = error_for("vendor/noop.so");
  EXPECT_EQ(e.kind(), PluginErrorKind::InsecureFile);
  EXPECT_THAT(e.what(), HasSubstr("vendor"));
}

TEST_F(LoaderSecurity, AllowWritableLoadsWithAWarning) {
  const fs::path file = dir_.add(HAMI_FIXTURE_OK_NOOP);
  fs::permissions(file, fs::perms::group_write, fs::perm_options::add);
  const auto handle = load(HAMI_FIXTURE_OK_NOOP, /*allow_writable=*/true);
  EXPECT_EQ(handle.info().name, "ok_noop");
  const auto lines = recorder_.lines();
  int warnings = 0;
  for (const auto& line : lines) {
    if (line.level == HAMI_LOG_WARN && line.message.find("loading anyway") != std::string::npos) {
      ++warnings;
      EXPECT_EQ(line.source, "plugins");
      EXPECT_THAT(line.message, HasSubstr(file.string()));
    }
  }
  EXPECT_EQ(warnings, 1);
}

TEST_F(LoaderSecurity, RelativeEscapeIsRefused) {
  elsewhere_.add(HAMI_FIXTURE_OK_NOOP);
  const std::string escape =
      "../" + elsewhere_.path().filename().string() + "/" + HAMI_FIXTURE_OK_NOOP;
  const auto e = error_for(escape);
  EXPECT_EQ(e.kind(), PluginErrorKind::OutsideDirectory);
  EXPECT_THAT(e.what(), HasSubstr(escape));
  EXPECT_THAT(e.what(), HasSubstr("outside the plugin directory"));
}

TEST_F(LoaderSecurity, AbsolutePathOutsideIsRefused) {
  const fs::path outside = elsewhere_.add(HAMI_FIXTURE_OK_NOOP);
  const auto e = error_for(outside.string());
  EXPECT_EQ(e.kind(), PluginErrorKind::OutsideDirectory);
  EXPECT_THAT(e.what(), HasSubstr(outside.string()));
}

TEST_F(LoaderSecurity, EscapeIsRefusedEvenWhenTheTargetDoesNotExist) {
  EXPECT_EQ(error_for("../../nowhere.so").kind(), PluginErrorKind::OutsideDirectory);
}

TEST_F(LoaderSecurity, SymlinkPointingOutsideIsRefused) {
  const fs::path outside = elsewhere_.add(HAMI_FIXTURE_OK_NOOP);
  fs::create_symlink(outside, dir_.path() / "link.so");
  const auto e = error_for("link.so");
  EXPECT_EQ(e.kind(), PluginErrorKind::OutsideDirectory);
  EXPECT_THAT(e.what(), HasSubstr("resolves to " + fs::canonical(outside).string()));
}

TEST_F(LoaderSecurity, AbsolutePathInsideIsAccepted) {
  const fs::path file = dir_.add(HAMI_FIXTURE_OK_NOOP);
  const auto handle = load(file.string());
  EXPECT_EQ(handle.info().library, fs::canonical(file));
}

TEST_F(LoaderSecurity, SubdirectoryInsideIsAccepted) {
  dir_.add(HAMI_FIXTURE_OK_NOOP, "vendor/noop.so");
  const auto handle = load("vendor/noop.so");
  EXPECT_EQ(handle.info().name, "ok_noop");
}

// Owned by someone other than root or the service user: refused. Needs
// root to hand the file to another user.
TEST_F(LoaderSecurity, FileOwnedByAnotherUserIsRefused) {
  if (::geteuid() != 0)
    GTEST_SKIP() << "changing a file's owner needs root";
  const fs::path file = dir_.add(HAMI_FIXTURE_OK_NOOP);
  ASSERT_EQ(::chown(file.c_str(), 65534, 65534), 0);
  const auto e = error_for(HAMI_FIXTURE_OK_NOOP);
  EXPECT_EQ(e.kind(), PluginErrorKind::InsecureFile);
  EXPECT_THAT(e.what(), HasSubstr("is owned by uid 65534, neither root nor the service user"));
  // The development override loads it with a warning.
  const auto handle = load(HAMI_FIXTURE_OK_NOOP, true);
  EXPECT_EQ(handle.info().name, "ok_noop");
}

TEST_F(LoaderSecurity, SubdirectoryOwnedByAnotherUserIsRefused) {
  if (::geteuid() != 0)
    GTEST_SKIP() << "changing a directory's owner needs root";
  dir_.add(HAMI_FIXTURE_OK_NOOP, "vendor/noop.so");
  ASSERT_EQ(::chown((dir_.path() / "vendor").c_str(), 65534, 65534), 0);
  const auto e = error_for("vendor/noop.so");
  EXPECT_EQ(e.kind(), PluginErrorKind::InsecureFile);
  EXPECT_THAT(e.what(),
              HasSubstr("the directory " + fs::canonical(dir_.path() / "vendor").string() +
                        " is owned by uid 65534"));
}

}  // namespace
}  // namespace hami::test
