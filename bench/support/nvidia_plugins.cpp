#include "nvidia_plugins.hpp"

namespace hami::bench {

NvidiaPlugins::NvidiaPlugins(const std::string& plugin_dir)
    : services([](int32_t, std::string_view, std::string_view) {},
               [] { return int64_t{1'750'000'000}; }) {
  registry = host::PluginRegistry::load(
      {plugin_dir, true},
      {{"nvidia", "nvidia.so", HAMI_KIND_DEVICE, "{}"},
       {"hami-policies", "hami-policies.so", HAMI_KIND_SCHEDULING, "{}"}},
      services);
}

}  // namespace hami::bench
