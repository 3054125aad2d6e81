// PluginLoader: turns a PluginSpec into a ready handle, step by step —
// resolve the file inside the plugin directory, refuse writable files, open
// it (rtld_now | rtld_local), negotiate, check the ABI major, the kind, the
// vtable and its required functions, validate the config against the
// plugin's schema, create the instance, and let the handle describe it.
// Every failure is a PluginLoadError of its own kind whose message names
// the configured plugin, its file and what is wrong.
//
// A library listed by several specs is opened and negotiated once; every
// instance keeps it loaded.
//
// Threading: load from one thread (dlopen is not safe to call concurrently
// on every platform).
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "plugins/admission_plugin_handle.hpp"
#include "plugins/device_plugin_handle.hpp"
#include "plugins/host_services.hpp"
#include "plugins/plugin_library.hpp"
#include "plugins/plugin_types.hpp"
#include "plugins/scheduling_plugin_handle.hpp"

namespace hami::host {

class PluginLoader {
 public:
  // `services` must outlive every handle this loader makes.
  PluginLoader(LoaderOptions options, const HostServices& services);

  // The slot is the method: a spec whose `kind` is set must match it.
  [[nodiscard]] DevicePluginHandle load_device(const PluginSpec& spec);
  [[nodiscard]] AdmissionPluginHandle load_admission(const PluginSpec& spec);
  [[nodiscard]] SchedulingPluginHandle load_scheduling(const PluginSpec& spec);

 private:
  struct Negotiated {
    std::shared_ptr<PluginLibrary> library;
    PluginInfo info;
    const void* vtable = nullptr;
  };

  // Everything up to and including the kind check.
  const Negotiated& negotiate(const PluginSpec& spec, uint32_t slot_kind, std::string& label);

  template <class Handle, class Vtable>
  Handle load(const PluginSpec& spec, uint32_t slot_kind);

  LoaderOptions options_;
  const HostServices* services_;
  std::map<std::filesystem::path, Negotiated> libraries_;
};

// One-off loads (tests, tools): a fresh loader per call.
DevicePluginHandle load_device_plugin(const LoaderOptions& options, const PluginSpec& spec,
                                      const HostServices& services);
AdmissionPluginHandle load_admission_plugin(const LoaderOptions& options, const PluginSpec& spec,
                                            const HostServices& services);
SchedulingPluginHandle load_scheduling_plugin(const LoaderOptions& options, const PluginSpec& spec,
                                              const HostServices& services);

}  // namespace hami::host
