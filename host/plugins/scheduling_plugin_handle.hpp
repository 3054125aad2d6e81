// SchedulingPluginHandle: the host's side of one scheduling policy plugin
// instance (node scoring, device ordering). See device_plugin_handle.hpp for
// the error and threading conventions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hami/scheduling.h"
#include "plugins/plugin_instance.hpp"
#include "plugins/plugin_types.hpp"

namespace hami::host {

// The policy names an instance implements, split from its comma lists.
struct PolicyNames {
  std::vector<std::string> node_policies, device_policies;
};

struct DeviceOrder {
  std::vector<size_t> order;  // a permutation of 0..devices_len-1, try-first at 0
  uint32_t fit_flags = 0;     // HAMI_FIT_*
};

class SchedulingPluginHandle {
 public:
  // Asks the instance to describe itself once; the names are cached.
  SchedulingPluginHandle(PluginInstance instance, const hami_scheduling_vtable& vtable);

  SchedulingPluginHandle(SchedulingPluginHandle&&) noexcept = default;
  SchedulingPluginHandle& operator=(SchedulingPluginHandle&&) noexcept = default;

  [[nodiscard]] const std::string& name() const noexcept { return instance_.name(); }
  [[nodiscard]] const PluginInfo& info() const noexcept { return instance_.info(); }

  // The cached result of the plugin's describe.
  [[nodiscard]] PolicyNames describe() const { return policies_; }
  [[nodiscard]] const PolicyNames& policies() const noexcept { return policies_; }

  // Whether `policy_word` is one of the node (or device) policies.
  [[nodiscard]] bool declares(std::string_view policy_word, bool node) const;

  // Score in [0, 100]; values outside (or NaN) are PluginCallError
  // HAMI_INTERNAL. HAMI_UNIMPLEMENTED when the plugin has no score_node.
  [[nodiscard]] double score_node(std::string_view policy, const hami_pod_view& pod,
                                  const hami_node_usage& node) const;

  // The device order; anything but a permutation of 0..devices_len-1 is
  // PluginCallError HAMI_INTERNAL. HAMI_UNIMPLEMENTED when the plugin has no
  // order_devices.
  [[nodiscard]] DeviceOrder order_devices(const hami_order_input& in) const;

  // The same into `order` (in.devices_len entries, overwritten) with no
  // allocation for nodes of up to 64 devices: the filter asks once per
  // container per candidate node. Returns the fit flags.
  uint32_t order_devices_into(const hami_order_input& in, std::span<size_t> order) const;

  [[nodiscard]] bool has_score_node() const noexcept { return vtable_.score_node != nullptr; }
  [[nodiscard]] bool has_order_devices() const noexcept { return vtable_.order_devices != nullptr; }

 private:
  friend class PluginRegistry;
  void release() noexcept { instance_.reset(); }

  PluginInstance instance_;
  hami_scheduling_vtable vtable_{};
  PolicyNames policies_;
};

// The default node (node = true) or device policy: the first name the first
// plugin of `plugins` declaring any such policy lists (hami/scheduling.h);
// "" when none declares one.
std::string_view default_policy(std::span<const SchedulingPluginHandle> plugins, bool node);

}  // namespace hami::host
