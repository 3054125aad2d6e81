// VgpuPolicy: the default admission decision (DESIGN §3), step by step:
//  1. (host) anything but a well-formed pod CREATE never reaches the plugin;
//  2. no app containers                       → denied "pod has no containers";
//  3. another scheduler named (not empty, not ours, and not
//     default-scheduler while forceOverwriteDefaultScheduler)
//                                             → skipped (admitted unchanged);
//  4. privileged: skip — any privileged container, init included
//                                             → skipped;
//  5. device defaults from every device plugin (an invalid value → denied
//     400 with the device plugin's message); if a container uses a managed
//     vGPU: privileged: deny and a privileged container → denied
//     "container <name> is privileged"; spec.nodeName set → denied
//     "pod has node assigned"; hami.io/numa-alignment other than absent,
//     best-effort or strict → denied 400 naming the annotation and the
//     allowed values; else spec.schedulerName := ours;
//  6. quota on and exceeded                   → denied with the host's
//     "exceeding resource quota ..." message (quota unknown → admitted);
//  7. admitted with the recorded mutations.
// Immutable after construction, so concurrent reviews are safe.
#pragma once

#include <hami/admission.hpp>
#include <string_view>

#include "vgpu_config.hpp"

namespace hami::vgpu {

class VgpuPolicy final : public AdmissionPolicy {
 public:
  VgpuPolicy(const hami_host_info& host, std::string_view config_json);
  explicit VgpuPolicy(VgpuConfig config) : config_(std::move(config)) {}

  void review(const hami_admission_input& in, hami_admission_output& out) override;

 private:
  VgpuConfig config_;
};

}  // namespace hami::vgpu
