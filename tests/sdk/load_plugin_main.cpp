// load_plugin <directory> <library> <device|admission|scheduling>
// Loads one plugin through the host's loader (allowWritable on: the
// directory is a scratch build tree) and prints its summary; exit 1 with the
// loader's message when it does not load. Used by the out-of-tree SDK test.
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>

#include "plugins/host_services.hpp"
#include "plugins/plugin_errors.hpp"
#include "plugins/plugin_loader.hpp"

int main(int argc, char** argv) {
  using namespace hami::host;
  if (argc != 4) {
    std::cerr << "usage: load_plugin <directory> <library> <device|admission|scheduling>\n";
    return 2;
  }
  const std::string_view kind = argv[3];
  HostServices services;
  PluginLoader loader(LoaderOptions{argv[1], true}, services);
  try {
    if (kind == "device") {
      const auto handle = loader.load_device(PluginSpec{"plugin", argv[2], HAMI_KIND_DEVICE, "{}"});
      std::cout << handle.info().name << " " << handle.info().version << " device\n";
    } else if (kind == "admission") {
      const auto handle =
          loader.load_admission(PluginSpec{"plugin", argv[2], HAMI_KIND_ADMISSION, "{}"});
      std::cout << handle.info().name << " " << handle.info().version << " admission\n";
    } else {
      const auto handle =
          loader.load_scheduling(PluginSpec{"plugin", argv[2], HAMI_KIND_SCHEDULING, "{}"});
      std::cout << handle.info().name << " " << handle.info().version << " scheduling";
      for (const auto& policy : handle.policies().node_policies) {
        std::cout << " node:" << policy;
      }
      std::cout << "\n";
    }
  } catch (const PluginLoadError& e) {
    std::cerr << to_string(e.kind()) << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}
