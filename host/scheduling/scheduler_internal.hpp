// What the Scheduler's source files share: the private structs declared in
// scheduler.hpp and a view helper. Not part of the interface.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hami/plugin.hpp"
#include "scheduling/node_devices.hpp"
#include "scheduling/node_fit.hpp"
#include "scheduling/pod_charge.hpp"
#include "scheduling/pod_requests.hpp"
#include "scheduling/policy_choice.hpp"
#include "scheduling/scheduler.hpp"
#include "scheduling/scoring_weights.hpp"

namespace hami::scheduling {

inline std::optional<std::string_view> pod_annotation(const hami_pod_view& pod,
                                                      std::string_view key) {
  for (size_t i = 0; i < pod.annotations_len; ++i) {
    if (to_sv(pod.annotations[i].key) == key)
      return to_sv(pod.annotations[i].value);
  }
  return std::nullopt;
}

struct Scheduler::Candidate {
  std::string name;
  const k8s::NodeModel* node = nullptr;   // full Nodes mode only
  const NodeDevicesMemo* memo = nullptr;  // full Nodes mode, optional
};

struct Scheduler::PodContext {
  const hami_pod_view* pod = nullptr;
  std::string key;  // ledger key: the uid
  std::string namespace_;
  std::string name;
  PodRequests requests;
  ScoringWeights weights;
  PolicyChoice node_policy;
  PolicyChoice device_policy;
};

struct Scheduler::Reservation {
  std::vector<VendorAllocation> allocations;
};

// The fit input of `ctx`'s pod: its requests, weights and device policy,
// with `quota` (null: not enforced); placements recorded.
inline PodFitInput Scheduler::fit_input(const PodContext& ctx, const QuotaContext* quota) const {
  PodFitInput input;
  input.pod = ctx.pod;
  input.requests = &ctx.requests;
  input.plugins = devices_;
  input.weights = ctx.weights;
  input.device_policy = ctx.device_policy.text;
  input.device_plugin = ctx.device_policy.plugin;
  input.quota = quota;
  return input;
}

}  // namespace hami::scheduling
