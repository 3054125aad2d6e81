// The conformance executable's main: reads the plugin directory from the
// command line or environment before GoogleTest registers the
// parameterised suites.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>
#include <string_view>

#include "conformance.hpp"
#include "conformance_plugins.h"

namespace hami::conformance {
namespace {

std::filesystem::path& directory_slot() {
  static std::filesystem::path directory = HAMI_CONFORMANCE_PLUGIN_DIR;
  return directory;
}

}  // namespace

std::filesystem::path BuiltPlugin::path() const {
  return plugin_directory() / file;
}

const std::vector<BuiltPlugin>& built_plugins() {
  static const std::vector<BuiltPlugin> plugins = [] {
    std::vector<BuiltPlugin> list(std::begin(kBuiltPlugins), std::end(kBuiltPlugins));
    // The generated table may hold a placeholder entry when the build has
    // no plugin targets at all; that is "no plugins", not a plugin.
    std::erase_if(list, [](const BuiltPlugin& p) { return p.file.empty(); });
    return list;
  }();
  return plugins;
}

std::vector<BuiltPlugin> built_plugins(uint32_t kind) {
  std::vector<BuiltPlugin> out;
  for (const auto& p : built_plugins()) {
    if (p.kind == kind) {
      out.push_back(p);
    }
  }
  return out;
}

const std::filesystem::path& plugin_directory() {
  return directory_slot();
}

std::string test_name(const BuiltPlugin& plugin) {
  std::string name = plugin.file.substr(0, plugin.file.rfind(".so"));
  for (char& c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0) {
      c = '_';
    }
  }
  return name;
}

}  // namespace hami::conformance

int main(int argc, char** argv) {
  // The directory is settled before GoogleTest registers the suites.
  if (const char* env = std::getenv("HAMI_PLUGIN_DIR"); env != nullptr && *env != '\0') {
    hami::conformance::directory_slot() = env;
  }
  constexpr std::string_view kFlag = "--plugin-dir=";
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.substr(0, kFlag.size()) == kFlag) {
      hami::conformance::directory_slot() = std::string(arg.substr(kFlag.size()));
    }
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
