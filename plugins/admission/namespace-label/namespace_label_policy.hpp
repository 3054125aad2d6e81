// NamespaceLabelPolicy: routes on a namespace label instead of on the pod.
// A pod is taken over only when its namespace carries `label` = `value`
// (config; default value "enabled"): then the device plugins' defaults are
// applied and, if a container uses a managed vGPU, spec.schedulerName is
// set (a pod with spec.nodeName is denied "pod has node assigned"). Pods of
// other namespaces, or when namespace labels are not known, are admitted
// unchanged. An invalid device value denies the pod (400).
//
// Config: {"label": "<key>", "value": "enabled", "schedulerName": "<name>"};
// only `label` is required; schedulerName defaults to the host's name.
#pragma once

#include <hami/admission.hpp>
#include <string>
#include <string_view>

namespace hami::nslabel {

struct NamespaceLabelConfig {
  std::string label;
  std::string value = "enabled";
  std::string scheduler_name;  // empty: the host's
};

extern const char kNamespaceLabelSchema[];

// Throws hami::Error(HAMI_INVALID_ARGUMENT) naming the bad key.
NamespaceLabelConfig parse_namespace_label_config(std::string_view json);

class NamespaceLabelPolicy final : public AdmissionPolicy {
 public:
  NamespaceLabelPolicy(const hami_host_info& host, std::string_view config_json);
  explicit NamespaceLabelPolicy(NamespaceLabelConfig config) : config_(std::move(config)) {}

  void review(const hami_admission_input& in, hami_admission_output& out) override;

 private:
  NamespaceLabelConfig config_;
};

}  // namespace hami::nslabel
