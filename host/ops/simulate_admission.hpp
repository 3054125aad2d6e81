// The admission webhook's decision on a simulated pod: the pod is sent
// through the host's own AdmissionService as a pod CREATE review (the
// configured admission plugin, the device plugins' defaults, the namespace
// quota check against the simulation's ledger), and the JSON Patch it
// answers is applied to the pod's JSON — so the scheduler sees the pod as
// the API server would store it.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "admission/admission_service.hpp"
#include "admission/cluster_view.hpp"
#include "plugins/admission_plugin_handle.hpp"
#include "plugins/device_plugin_handle.hpp"

namespace hami::ops {

struct AdmittedPod {
  enum class Verdict {
    allowed,  // the pod as the webhook patched it
    denied,   // `message`: the webhook's
    error     // the review failed: `message` says why
  };
  Verdict verdict = Verdict::error;
  std::string json;     // allowed: the patched pod
  std::string message;  // denied or error
};

class SimulatedAdmission {
 public:
  // Everything must outlive the object. Without an admission plugin
  // (`policy` null) every pod is allowed unchanged. `view`: quotas and
  // namespace labels (may be null).
  SimulatedAdmission(std::span<const host::DevicePluginHandle> devices,
                     const host::AdmissionPluginHandle* policy,
                     const admission::AdmissionClusterView* view, std::string scheduler_name);

  // `pod_json`: a Pod object with metadata.namespace set.
  AdmittedPod admit(std::string_view pod_json, std::string_view namespace_) const;

 private:
  std::unique_ptr<admission::AdmissionService> service_;
};

// Applies an RFC 6902 patch made of "add" and "replace" operations (what
// the webhook writes) to `json`; returns the patched text. Throws
// std::invalid_argument for a malformed patch, another operation, or a
// path whose parent is missing.
std::string apply_json_patch(std::string_view json, std::string_view patch);

}  // namespace hami::ops
