#include "plugins/plugin_registry.hpp"

#include <set>
#include <stdexcept>
#include <string>

#include "hami/policy_text.hpp"
#include "plugins/plugin_loader.hpp"

namespace hami::host {

PluginRegistry::~PluginRegistry() {
  clear();
}

PluginRegistry::PluginRegistry(PluginRegistry&& other) noexcept
    : devices_(std::move(other.devices_)),
      admission_(std::move(other.admission_)),
      scheduling_(std::move(other.scheduling_)),
      created_(std::move(other.created_)),
      summary_(std::move(other.summary_)) {
  other.admission_.reset();
  other.created_.clear();
  other.summary_.clear();
}

PluginRegistry& PluginRegistry::operator=(PluginRegistry&& other) noexcept {
  if (this != &other) {
    clear();
    devices_ = std::move(other.devices_);
    admission_ = std::move(other.admission_);
    scheduling_ = std::move(other.scheduling_);
    created_ = std::move(other.created_);
    summary_ = std::move(other.summary_);
    other.admission_.reset();
    other.created_.clear();
    other.summary_.clear();
  }
  return *this;
}

void PluginRegistry::clear() noexcept {
  for (auto it = created_.rbegin(); it != created_.rend(); ++it) {
    const auto [kind, index] = *it;
    if (kind == HAMI_KIND_DEVICE && index < devices_.size()) {
      devices_[index].release();
    } else if (kind == HAMI_KIND_ADMISSION && admission_) {
      admission_->release();
    } else if (kind == HAMI_KIND_SCHEDULING && index < scheduling_.size()) {
      scheduling_[index].release();
    }
  }
  created_.clear();
  summary_.clear();
  scheduling_.clear();
  admission_.reset();
  devices_.clear();
}

PluginRegistry PluginRegistry::load(const LoaderOptions& options,
                                    const std::vector<PluginSpec>& specs, HostServices& services) {
  std::set<std::string, std::less<>> names;
  size_t admission_count = 0;
  for (const PluginSpec& spec : specs) {
    if (!names.insert(spec.name).second) {
      throw std::invalid_argument("plugin name '" + spec.name + "' is configured twice");
    }
    if (spec.kind != HAMI_KIND_DEVICE && spec.kind != HAMI_KIND_ADMISSION &&
        spec.kind != HAMI_KIND_SCHEDULING) {
      throw std::invalid_argument("plugin '" + spec.name + "' has " + kind_name(spec.kind));
    }
    if (spec.kind == HAMI_KIND_ADMISSION && ++admission_count > 1) {
      throw std::invalid_argument("more than one admission plugin is configured ('" + spec.name +
                                  "' is the second)");
    }
  }

  // Reserving keeps handles in place while later ones load, and lets the
  // registry's destructor unwind a partial load in reverse order.
  PluginRegistry registry;
  registry.devices_.reserve(specs.size());
  registry.scheduling_.reserve(specs.size());
  PluginLoader loader(options, services);
  for (const PluginSpec& spec : specs) {
    switch (spec.kind) {
      case HAMI_KIND_DEVICE:
        registry.devices_.push_back(loader.load_device(spec));
        registry.created_.emplace_back(spec.kind, registry.devices_.size() - 1);
        registry.summary_.push_back(summarize(spec.name, registry.devices_.back().info()));
        break;
      case HAMI_KIND_ADMISSION:
        registry.admission_.emplace(loader.load_admission(spec));
        registry.created_.emplace_back(spec.kind, 0);
        registry.summary_.push_back(summarize(spec.name, registry.admission_->info()));
        break;
      default:
        registry.scheduling_.push_back(loader.load_scheduling(spec));
        registry.created_.emplace_back(spec.kind, registry.scheduling_.size() - 1);
        registry.summary_.push_back(summarize(spec.name, registry.scheduling_.back().info()));
        break;
    }
  }
  return registry;
}

const DevicePluginHandle* PluginRegistry::device(std::string_view name) const noexcept {
  for (const auto& handle : devices_) {
    if (handle.name() == name) {
      return &handle;
    }
  }
  return nullptr;
}

const SchedulingPluginHandle* PluginRegistry::scheduling_for(std::string_view policy_text,
                                                             bool node) const noexcept {
  const std::string_view word = hami::first_policy_word(policy_text);
  if (word.empty()) {
    return nullptr;
  }
  for (const auto& handle : scheduling_) {
    if (handle.declares(word, node)) {
      return &handle;
    }
  }
  return nullptr;
}

}  // namespace hami::host
