#include "vgpu_policy.hpp"

#include <string>

namespace hami::vgpu {

namespace {

constexpr std::string_view kDefaultScheduler = "default-scheduler";
// How strictly the node-side plugin holds the pod to NUMA-aligned devices
// (the NUMA refit, docs/refit.md): absent, best-effort or strict.
constexpr std::string_view kNumaAlignmentAnnotation = "hami.io/numa-alignment";

// The denial for an unknown hami.io/numa-alignment value; "" when valid.
std::string numa_alignment_problem(const hami_pod_view& pod) {
  for (size_t i = 0; i < pod.annotations_len; ++i) {
    if (to_sv(pod.annotations[i].key) != kNumaAlignmentAnnotation)
      continue;
    const std::string_view value = to_sv(pod.annotations[i].value);
    if (value == "best-effort" || value == "strict")
      return {};
    return "pod annotation " + std::string(kNumaAlignmentAnnotation) + " is \"" +
           std::string(value) + "\"; allowed values are \"best-effort\" and \"strict\"";
  }
  return {};
}

void decide(hami_admission_output& out, uint32_t verdict, int32_t code, std::string_view message) {
  out.verdict = verdict;
  out.code = code;
  set_message(out, message);
}

// The first privileged container, init containers first (the view's order).
const hami_container_view* first_privileged(const hami_pod_view& pod) {
  for (size_t i = 0; i < pod.containers_len; ++i) {
    if (pod.containers[i].privileged != 0)
      return &pod.containers[i];
  }
  return nullptr;
}

}  // namespace

VgpuPolicy::VgpuPolicy(const hami_host_info& /*host*/, std::string_view config_json)
    : config_(parse_vgpu_config(config_json)) {}

void VgpuPolicy::review(const hami_admission_input& in, hami_admission_output& out) {
  const hami_pod_view& pod = *in.pod;
  const std::string_view ours =
      config_.scheduler_name.empty() ? to_sv(in.scheduler_name) : config_.scheduler_name;

  if (pod.containers_len <= pod.init_count) {
    return decide(out, HAMI_ADMIT_DENY, 403, "pod has no containers");
  }

  const std::string_view current = to_sv(pod.scheduler_name);
  const bool ours_to_take =
      current.empty() || current == ours ||
      (current == kDefaultScheduler && config_.force_overwrite_default_scheduler);
  if (!ours_to_take) {
    return decide(out, HAMI_ADMIT_SKIP, 0, "pod already has different scheduler assigned");
  }

  const hami_container_view* privileged = first_privileged(pod);
  if (privileged != nullptr && config_.privileged == PrivilegedMode::Skip) {
    return decide(out, HAMI_ADMIT_SKIP, 0,
                  "container " + std::string(to_sv(privileged->name)) +
                      " is privileged; pod admitted unchanged");
  }

  bool uses_managed = false;
  const HostReply defaults = apply_device_defaults(in, uses_managed);
  if (defaults.status == HAMI_INVALID_ARGUMENT) {
    return decide(out, HAMI_ADMIT_DENY, 400, defaults.message);
  }
  if (!defaults.ok())
    throw Error(defaults.status, defaults.message);

  if (uses_managed) {
    if (privileged != nullptr) {  // privileged: deny
      return decide(out, HAMI_ADMIT_DENY, 403,
                    "container " + std::string(to_sv(privileged->name)) + " is privileged");
    }
    if (pod.node_name.len != 0) {
      return decide(out, HAMI_ADMIT_DENY, 403, "pod has node assigned");
    }
    if (const std::string problem = numa_alignment_problem(pod); !problem.empty())
      return decide(out, HAMI_ADMIT_DENY, 400, problem);
    set_scheduler_name(out, ours);
  }

  if (config_.quota) {
    const HostReply quota = check_quota(in);
    if (quota.status == HAMI_RESOURCE_EXHAUSTED) {
      return decide(out, HAMI_ADMIT_DENY, 403, quota.message);
    }
    // HAMI_UNAVAILABLE: quotas are not known (no cluster state yet); like
    // HAMi with an empty quota cache, the pod is admitted.
    if (!quota.ok() && quota.status != HAMI_UNAVAILABLE)
      throw Error(quota.status, quota.message);
  }

  out.verdict = HAMI_ADMIT_ALLOW;
}

}  // namespace hami::vgpu
