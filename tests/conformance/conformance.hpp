// Shared by every file of the conformance executable: which plugins the
// build produced (from CMake's hami_add_plugin targets, never the test
// fixtures) and where to find them at test time.
//
// To add a kind-specific suite, drop a `*_conformance.cpp` into this folder;
// it joins the `conformance_tests` executable, and can instantiate over
//   ::testing::ValuesIn(hami::conformance::built_plugins(HAMI_KIND_DEVICE))
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace hami::conformance {

struct BuiltPlugin {
  std::string file;  // file name inside the plugin directory, e.g. "nvidia.so"
  uint32_t kind;     // HAMI_KIND_* the build declared for it
  [[nodiscard]] std::filesystem::path path() const;
};

// Every plugin target of the build, in target-name order.
const std::vector<BuiltPlugin>& built_plugins();
// Only those of one kind.
std::vector<BuiltPlugin> built_plugins(uint32_t kind);

// --plugin-dir=DIR, else $HAMI_PLUGIN_DIR, else the build's plugin folder.
const std::filesystem::path& plugin_directory();

// A test-name-safe form of a plugin file name ("namespace-label.so" →
// "namespace_label").
std::string test_name(const BuiltPlugin& plugin);

}  // namespace hami::conformance
