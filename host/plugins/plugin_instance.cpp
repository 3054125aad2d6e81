#include "plugins/plugin_instance.hpp"

#include <utility>

namespace hami::host {

PluginInstance::PluginInstance(std::shared_ptr<PluginLibrary> library, std::string name,
                               PluginInfo info, DestroyFn destroy, hami_instance* instance)
    : library_(std::move(library)),
      name_(std::move(name)),
      info_(std::move(info)),
      destroy_(destroy),
      instance_(instance) {
  if ((info_.flags & HAMI_FLAG_CONCURRENT_SAFE) == 0) {
    mutex_ = std::make_unique<std::mutex>();
  }
}

PluginInstance::~PluginInstance() {
  reset();
}

PluginInstance::PluginInstance(PluginInstance&& other) noexcept
    : library_(std::move(other.library_)),
      name_(std::move(other.name_)),
      info_(std::move(other.info_)),
      destroy_(std::exchange(other.destroy_, nullptr)),
      instance_(std::exchange(other.instance_, nullptr)),
      mutex_(std::move(other.mutex_)) {}

PluginInstance& PluginInstance::operator=(PluginInstance&& other) noexcept {
  if (this != &other) {
    reset();
    library_ = std::move(other.library_);
    name_ = std::move(other.name_);
    info_ = std::move(other.info_);
    destroy_ = std::exchange(other.destroy_, nullptr);
    instance_ = std::exchange(other.instance_, nullptr);
    mutex_ = std::move(other.mutex_);
  }
  return *this;
}

void PluginInstance::reset() noexcept {
  if (instance_ != nullptr && destroy_ != nullptr) {
    try {
      destroy_(instance_);
    } catch (...) {
      // destroy must not throw (HAMI-PLUGIN-7); if a plugin does anyway, the
      // instance is lost but the host keeps running.
    }
  }
  instance_ = nullptr;
  destroy_ = nullptr;
  library_.reset();
}

std::unique_lock<std::mutex> PluginInstance::serialize() const {
  return mutex_ ? std::unique_lock<std::mutex>(*mutex_) : std::unique_lock<std::mutex>();
}

}  // namespace hami::host
