// DevicePluginHandle: the members ABI 1.2 appended — the vendor's own node
// lock in the description, and score_placement.
#include <cmath>

#include "plugins/device_plugin_handle.hpp"
#include "plugins/placed_view.hpp"
#include "plugins/plugin_call.hpp"

namespace hami::host {

void DevicePluginHandle::read_description_1_2(const hami_device_description& out,
                                              CallProblems& problems) {
  // As in 1.1: the host's zeroed full-size struct reads as "absent".
  DeviceDescription& d = description_;
  if (d.node_lock != HAMI_NODE_LOCK_OWN)
    return;
  d.own_lock_annotation = problems.text(out.own_lock_annotation, "own_lock_annotation");
  d.own_lock_expiry_seconds = out.own_lock_expiry_seconds;
  if (d.own_lock_annotation.empty())
    problems.invalid("node_lock HAMI_NODE_LOCK_OWN needs an own_lock_annotation");
  if (d.own_lock_expiry_seconds <= 0) {
    problems.invalid("own_lock_expiry_seconds " + std::to_string(d.own_lock_expiry_seconds) +
                     " is not positive");
  }
}

PlacementScore DevicePluginHandle::score_placement(const hami_pod_view& pod, std::string_view node,
                                                   std::string_view node_policy,
                                                   std::span<const hami_device_usage> devices,
                                                   const PodAllocation& allocation) const {
  PlacementScore result;
  if (vtable_.score_placement == nullptr)
    return result;
  const PlacedView placed(allocation);
  const hami_placement_score_input in{static_cast<uint32_t>(sizeof(hami_placement_score_input)),
                                      &pod,
                                      {node.data(), node.size()},
                                      {node_policy.data(), node_policy.size()},
                                      devices.data(),
                                      devices.size(),
                                      placed.containers().data(),
                                      placed.containers().size()};
  hami_placement_score out{};
  out.struct_size = static_cast<uint32_t>(sizeof out);
  ErrorBuffer err;
  {
    const auto lock = instance_.serialize();
    call_plugin(instance_, "score_placement", err,
                [&] { return vtable_.score_placement(instance_.get(), &in, &out, err.view()); });
  }
  if (!std::isfinite(out.score)) {
    throw_invalid_output(instance_, "score_placement", "score is not a finite number");
  }
  result.score = out.score;
  result.policy_neutral = out.policy_neutral != 0;
  return result;
}

}  // namespace hami::host
