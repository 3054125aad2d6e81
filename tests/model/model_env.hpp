// What every model run of a test shares: the real device plugins and the
// scheduling policies loaded from the build's plugin folder, and the clock
// the plugins and the scheduler read (each run resets it).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "plugins/host_services.hpp"
#include "plugins/plugin_registry.hpp"

namespace hami::model {

inline constexpr int64_t kStartTime = 1'750'000'000;

struct ModelEnv {
  std::atomic<int64_t> now{kStartTime};
  host::HostServices services{[](int32_t, std::string_view, std::string_view) {},
                              [this] { return now.load(); }};
  host::PluginRegistry registry;

  ModelEnv() {
    host::LoaderOptions loader{HAMI_PLUGIN_DIR, true};
    std::vector<host::PluginSpec> specs = {
        {"nvidia", "nvidia.so", HAMI_KIND_DEVICE, "{}"},
        {"amd", "amd.so", HAMI_KIND_DEVICE, "{}"},
        {"hami-policies", "hami-policies.so", HAMI_KIND_SCHEDULING, "{}"},
    };
    registry = host::PluginRegistry::load(loader, specs, services);
  }
};

}  // namespace hami::model
