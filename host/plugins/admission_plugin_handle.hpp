// AdmissionPluginHandle: the host's side of the admission plugin instance
// (the webhook's decision). See device_plugin_handle.hpp for the error and
// threading conventions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "hami/admission.h"
#include "plugins/plugin_instance.hpp"
#include "plugins/plugin_types.hpp"

namespace hami::host {

struct AdmissionDecision {
  uint32_t verdict = HAMI_ADMIT_SKIP;  // HAMI_ADMIT_ALLOW / DENY / SKIP
  int32_t code = 0;                    // as the plugin set it; 0 = the host's default (403)
  std::string message;
  std::optional<std::string> scheduler_name;  // set only when the plugin wrote one
};

class AdmissionPluginHandle {
 public:
  AdmissionPluginHandle(PluginInstance instance, const hami_admission_vtable& vtable);

  AdmissionPluginHandle(AdmissionPluginHandle&&) noexcept = default;
  AdmissionPluginHandle& operator=(AdmissionPluginHandle&&) noexcept = default;

  [[nodiscard]] const std::string& name() const noexcept { return instance_.name(); }
  [[nodiscard]] const PluginInfo& info() const noexcept { return instance_.info(); }

  // Runs `review`. `in.host` (the caller's hami_admission_host) is called
  // back on this thread during the call. A verdict outside HAMI_ADMIT_* is
  // PluginCallError HAMI_INTERNAL.
  [[nodiscard]] AdmissionDecision review(const hami_admission_input& in) const;

 private:
  friend class PluginRegistry;
  void release() noexcept { instance_.reset(); }

  PluginInstance instance_;
  hami_admission_vtable vtable_{};
};

}  // namespace hami::host
