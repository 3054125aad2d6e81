// PluginRegistry: every configured plugin, loaded and ready — the device
// plugins, at most one admission plugin and the scheduling plugins, in
// configuration order. An ordinary object owned by the application.
//
// Lifetime: instances are destroyed in reverse creation order when the
// registry is destroyed (or assigned over); each library is unloaded after
// its last instance. The HostServices passed to load() must outlive it.
// Threading: const methods may be used from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "plugins/admission_plugin_handle.hpp"
#include "plugins/device_plugin_handle.hpp"
#include "plugins/host_services.hpp"
#include "plugins/plugin_types.hpp"
#include "plugins/scheduling_plugin_handle.hpp"

namespace hami::host {

class PluginRegistry {
 public:
  PluginRegistry() = default;
  ~PluginRegistry();
  PluginRegistry(PluginRegistry&& other) noexcept;
  PluginRegistry& operator=(PluginRegistry&& other) noexcept;
  PluginRegistry(const PluginRegistry&) = delete;
  PluginRegistry& operator=(const PluginRegistry&) = delete;

  // Loads `specs` in order, each into the slot its `kind` names. Throws
  // PluginLoadError for the first plugin that fails (already created
  // instances are destroyed again), std::invalid_argument for a
  // configuration the registry cannot hold (duplicate names, a second
  // admission plugin, an unknown kind).
  static PluginRegistry load(const LoaderOptions& options, const std::vector<PluginSpec>& specs,
                             HostServices& services);

  [[nodiscard]] std::span<const DevicePluginHandle> devices() const noexcept { return devices_; }
  [[nodiscard]] const AdmissionPluginHandle* admission() const noexcept {
    return admission_ ? &*admission_ : nullptr;
  }
  [[nodiscard]] std::span<const SchedulingPluginHandle> scheduling() const noexcept {
    return scheduling_;
  }

  // The device plugin configured under `name`, or nullptr.
  [[nodiscard]] const DevicePluginHandle* device(std::string_view name) const noexcept;

  // The first scheduling plugin (in configuration order) declaring the
  // policy text's first comma word as a node (node = true) or device
  // policy; nullptr when none does. "binpack,numa" → the one declaring
  // "binpack".
  [[nodiscard]] const SchedulingPluginHandle* scheduling_for(std::string_view policy_text,
                                                             bool node) const noexcept;

  // One entry per loaded plugin, in load order (for --list-plugins).
  [[nodiscard]] const std::vector<PluginSummary>& summary() const noexcept { return summary_; }
  [[nodiscard]] size_t size() const noexcept { return summary_.size(); }

 private:
  // Destroys every instance in reverse creation order.
  void clear() noexcept;

  std::vector<DevicePluginHandle> devices_;
  std::optional<AdmissionPluginHandle> admission_;
  std::vector<SchedulingPluginHandle> scheduling_;
  // (kind, index into its container) in creation order.
  std::vector<std::pair<uint32_t, size_t>> created_;
  std::vector<PluginSummary> summary_;
};

}  // namespace hami::host
