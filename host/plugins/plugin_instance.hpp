// PluginInstance: one hami_instance plus everything needed to call it and
// to destroy it safely — the library it came from, its declared info and the
// per-instance call mutex (HAMI-HOST-8).
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "hami/plugin.h"
#include "plugins/plugin_library.hpp"
#include "plugins/plugin_types.hpp"

namespace hami::host {

class PluginInstance {
 public:
  using DestroyFn = void (*)(hami_instance*);

  PluginInstance() = default;
  // Takes ownership of `instance`. Calls are serialised unless `info.flags`
  // has HAMI_FLAG_CONCURRENT_SAFE.
  PluginInstance(std::shared_ptr<PluginLibrary> library, std::string name, PluginInfo info,
                 DestroyFn destroy, hami_instance* instance);
  ~PluginInstance();

  PluginInstance(PluginInstance&& other) noexcept;
  PluginInstance& operator=(PluginInstance&& other) noexcept;
  PluginInstance(const PluginInstance&) = delete;
  PluginInstance& operator=(const PluginInstance&) = delete;

  // Destroys the instance now (the library stays loaded while this object,
  // or any other instance of it, holds it). No call may be in flight.
  void reset() noexcept;

  [[nodiscard]] hami_instance* get() const noexcept { return instance_; }
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] const PluginInfo& info() const noexcept { return info_; }

  // Hold the returned lock for the duration of one plugin call. It owns the
  // instance's mutex, or nothing for a HAMI_FLAG_CONCURRENT_SAFE plugin.
  [[nodiscard]] std::unique_lock<std::mutex> serialize() const;

 private:
  // Declared first, so the library is released after the instance is gone.
  std::shared_ptr<PluginLibrary> library_;
  std::string name_;
  PluginInfo info_;
  DestroyFn destroy_ = nullptr;
  hami_instance* instance_ = nullptr;
  std::unique_ptr<std::mutex> mutex_;
};

}  // namespace hami::host
