// The vgpu admission plugin's configuration (plugins.admission.config in
// the host YAML). Every key is optional:
//   schedulerName                  — name written into spec.schedulerName;
//                                    default: the host's scheduler name.
//   privileged: skip | deny        — skip (default, the seed): a pod with a
//                                    privileged container is admitted
//                                    unchanged; deny (HAMi): a privileged pod
//                                    that uses a managed vGPU is denied.
//   forceOverwriteDefaultScheduler — true (default): pods naming
//                                    default-scheduler are taken over.
//   quota                          — true (default): check namespace quotas.
#pragma once

#include <string>
#include <string_view>

namespace hami::vgpu {

enum class PrivilegedMode { Skip, Deny };

struct VgpuConfig {
  std::string scheduler_name;  // empty: use the host's
  PrivilegedMode privileged = PrivilegedMode::Skip;
  bool force_overwrite_default_scheduler = true;
  bool quota = true;
};

// JSON Schema (draft 4) of the config document.
extern const char kVgpuConfigSchema[];

// Parses the config document. Throws hami::Error(HAMI_INVALID_ARGUMENT)
// naming the key when it is malformed (the host validates against the
// schema first; this is the plugin's own guard).
VgpuConfig parse_vgpu_config(std::string_view json);

}  // namespace hami::vgpu
