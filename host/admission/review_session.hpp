// ReviewSession: the host services (hami_admission_host) the admission
// plugin calls back during one pod review — device defaults, the quota
// check, namespace labels — over the review's PodModel and JSON Patch.
//
// Contract:
//  - apply_device_defaults runs every device plugin (configuration order)
//    over every container (init containers first, then app containers),
//    feeds each container mutation through the PodPatcher (so later plugins
//    and the quota check see the defaults), and reports whether any
//    container uses a managed vGPU. A device plugin's HAMI_INVALID_ARGUMENT
//    is passed on with the plugin's own message; a second call is
//    HAMI_FAILED_PRECONDITION. After the defaults, every device plugin's
//    container_request is asked about every container: a value it reports
//    unusable (HAMI_INVALID_ARGUMENT, e.g. a memory quantity "8Gi" where an
//    integer number of MiB is read) is HAMI_INVALID_ARGUMENT with that
//    message, so the pod is denied instead of reaching filter with no
//    request and passing every node (HAMi 7.7#8).
//  - check_quota asks the cluster view for the namespace's quotas and
//    compares each vendor's demand (HAMi §2.5); HAMI_RESOURCE_EXHAUSTED with
//    "exceeding resource quota in namespace <ns>: <reason>"; HAMI_UNAVAILABLE
//    without a cluster view.
//  - namespace_label: HAMI_OK / HAMI_NOT_FOUND / HAMI_UNAVAILABLE (no view).
//  - No exception crosses the C boundary: anything thrown inside a callback
//    becomes HAMI_INTERNAL with its message.
// One session per review, used on the reviewing thread only.
#pragma once

#include <hami/admission.h>

#include <span>

#include "admission/cluster_view.hpp"
#include "admission/pod_patcher.hpp"
#include "k8s/pod.hpp"
#include "plugins/device_plugin_handle.hpp"

namespace hami::admission {

class ReviewSession {
 public:
  // Everything referenced must outlive the session; `cluster` may be null.
  ReviewSession(k8s::PodModel& pod, PodPatcher& patcher,
                std::span<const host::DevicePluginHandle> devices,
                const AdmissionClusterView* cluster);
  ReviewSession(const ReviewSession&) = delete;
  ReviewSession& operator=(const ReviewSession&) = delete;

  // The table to put in hami_admission_input.host (points at this session).
  const hami_admission_host& table() const noexcept { return table_; }

  bool defaults_applied() const noexcept { return defaults_applied_; }
  bool uses_managed() const noexcept { return uses_managed_; }

 private:
  static hami_status apply_device_defaults_cb(void* ctx, uint32_t* uses_managed,
                                              hami_errbuf err) noexcept;
  static hami_status check_quota_cb(void* ctx, hami_errbuf err) noexcept;
  static hami_status namespace_label_cb(void* ctx, hami_str key, hami_sink value) noexcept;

  hami_status apply_device_defaults(uint32_t& uses_managed, hami_errbuf err);
  hami_status check_quota(hami_errbuf err);
  hami_status check_requests(hami_errbuf err) const;
  hami_status namespace_label(std::string_view key, hami_sink value);

  k8s::PodModel& pod_;
  PodPatcher& patcher_;
  std::span<const host::DevicePluginHandle> devices_;
  const AdmissionClusterView* cluster_;
  hami_admission_host table_{};
  bool defaults_applied_ = false;
  bool uses_managed_ = false;
};

}  // namespace hami::admission
