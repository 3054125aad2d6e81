#include "plugins/plugin_library.hpp"

#include <dlfcn.h>

#include <boost/dll/shared_library_load_mode.hpp>
#include <string>
#include <utility>

#include "plugins/plugin_errors.hpp"

#ifndef HAMI_HOST_VERSION
#define HAMI_HOST_VERSION "0.0.0"
#endif

namespace hami::host {

PluginLibrary::PluginLibrary(Key /*key*/, std::filesystem::path file, const HostServices& services)
    : file_(std::move(file)), services_(&services) {}

std::shared_ptr<PluginLibrary> PluginLibrary::open(const std::filesystem::path& file,
                                                   const std::string& label,
                                                   const HostServices& services) {
  auto lib = std::make_shared<PluginLibrary>(Key{}, file, services);
  boost::dll::fs::error_code ec;
  // rtld_now: unresolved symbols fail here, not at the first call;
  // rtld_local: plugins cannot bind to each other's symbols.
  lib->library_.load(boost::dll::fs::path(file.native()), ec,
                     boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  if (ec) {
    // Boost.DLL reports only an errno-style code; the dynamic loader's own
    // text says what is wrong with the file.
    const char* reason = ::dlerror();
    throw PluginLoadError(PluginErrorKind::CannotOpen,
                          label + ": cannot load: " + (reason != nullptr ? reason : ec.message()));
  }
  if (!lib->library_.has(HAMI_PLUGIN_ENTRY_POINT)) {
    throw PluginLoadError(PluginErrorKind::MissingEntryPoint,
                          label + ": does not export " HAMI_PLUGIN_ENTRY_POINT
                                  " (not a hami plugin, or built without HamiPlugin.cmake's "
                                  "export rules)");
  }
  // The function type, not a pointer type: get<T> returns a T& to the symbol.
  lib->entry_ = &lib->library_.get<hami_plugin_negotiate_t>(HAMI_PLUGIN_ENTRY_POINT);
  return lib;
}

hami_host_info PluginLibrary::host_info(const std::string& source) {
  HostContext& ctx = contexts_.emplace_back(HostContext{services_, source});
  static constexpr char kVersion[] = HAMI_HOST_VERSION;
  hami_host_info info{};
  info.struct_size = static_cast<uint32_t>(sizeof info);
  info.abi_major = HAMI_ABI_MAJOR;
  info.abi_minor = HAMI_ABI_MINOR;
  info.host = &HostServices::api();
  info.host_ctx = &ctx;
  info.host_version = hami_str{kVersion, sizeof kVersion - 1};
  return info;
}

void PluginLibrary::keep_loaded() {
  // RTLD_NODELETE on an already-loaded object marks it never to be unmapped;
  // the extra reference is dropped again right away.
  void* handle = ::dlopen(file_.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD | RTLD_NODELETE);
  if (handle != nullptr) {
    ::dlclose(handle);
  }
}

}  // namespace hami::host
