// PluginLibrary: one opened plugin file (Boost.DLL, rtld_now | rtld_local)
// and the host contexts handed to it. Every instance made from the library
// holds a shared_ptr to it, so the code outlives every object that runs it
// (HAMI-HOST-1).
#pragma once

#include <boost/dll/shared_library.hpp>
#include <deque>
#include <filesystem>
#include <memory>
#include <string>

#include "hami/plugin.h"
#include "plugins/host_services.hpp"

namespace hami::host {

class PluginLibrary {
 public:
  // Opens `file` (already resolved and checked). `label` prefixes error
  // messages ("plugin 'nvidia' (/path/nvidia.so)"). Throws PluginLoadError:
  // CannotOpen with the dynamic loader's message, MissingEntryPoint when
  // hami_plugin_negotiate is not exported.
  static std::shared_ptr<PluginLibrary> open(const std::filesystem::path& file,
                                             const std::string& label,
                                             const HostServices& services);

  // Only open() can make the key; the constructor is public for make_shared.
  class Key {
    friend class PluginLibrary;
    Key() = default;
  };
  PluginLibrary(Key, std::filesystem::path file, const HostServices& services);
  PluginLibrary(const PluginLibrary&) = delete;
  PluginLibrary& operator=(const PluginLibrary&) = delete;
  ~PluginLibrary() = default;

  [[nodiscard]] const std::filesystem::path& file() const noexcept { return file_; }
  [[nodiscard]] hami_plugin_negotiate_t& negotiate_entry() const noexcept { return *entry_; }

  // A hami_host_info whose host_ctx attributes log lines to `source`. The
  // context lives as long as this library object, i.e. until after the
  // library is unloaded. Not thread-safe: call while loading.
  hami_host_info host_info(const std::string& source);

  // HAMI_FLAG_KEEP_LOADED: the code stays mapped until the process exits.
  void keep_loaded();

 private:
  std::filesystem::path file_;
  const HostServices* services_;
  // Declared before library_ so it is destroyed after the unload.
  std::deque<HostContext> contexts_;
  boost::dll::shared_library library_;
  hami_plugin_negotiate_t* entry_ = nullptr;
};

}  // namespace hami::host
