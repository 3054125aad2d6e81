#include "plugins/scheduling_plugin_handle.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "hami/policy_text.hpp"
#include "plugins/plugin_call.hpp"

namespace hami::host {
namespace {

std::vector<std::string> split_policies(std::string_view list) {
  std::vector<std::string> names;
  for_each_policy_word(list, [&](std::string_view word) {
    if (!word.empty())
      names.emplace_back(word);
    return true;
  });
  return names;
}

}  // namespace

std::string_view default_policy(std::span<const SchedulingPluginHandle> plugins, bool node) {
  for (const SchedulingPluginHandle& p : plugins) {
    const auto& names = node ? p.policies().node_policies : p.policies().device_policies;
    if (!names.empty())
      return names.front();
  }
  return {};
}

SchedulingPluginHandle::SchedulingPluginHandle(PluginInstance instance,
                                               const hami_scheduling_vtable& vtable)
    : instance_(std::move(instance)), vtable_(vtable) {
  hami_policy_description out{};
  out.struct_size = static_cast<uint32_t>(sizeof out);
  ErrorBuffer err;
  {
    const auto lock = instance_.serialize();
    call_plugin(instance_, "describe", err,
                [&] { return vtable_.describe(instance_.get(), &out, err.view()); });
  }
  CallProblems problems;
  policies_.node_policies = split_policies(problems.text(out.node_policies, "node_policies"));
  policies_.device_policies = split_policies(problems.text(out.device_policies, "device_policies"));
  problems.report(instance_, "describe");
}

bool SchedulingPluginHandle::declares(std::string_view policy_word, bool node) const {
  const auto& names = node ? policies_.node_policies : policies_.device_policies;
  return std::find(names.begin(), names.end(), policy_word) != names.end();
}

double SchedulingPluginHandle::score_node(std::string_view policy, const hami_pod_view& pod,
                                          const hami_node_usage& node) const {
  if (vtable_.score_node == nullptr) {
    throw PluginCallError(HAMI_UNIMPLEMENTED,
                          call_message(instance_, "score_node", "not implemented by the plugin"));
  }
  double score = std::numeric_limits<double>::quiet_NaN();
  ErrorBuffer err;
  {
    const auto lock = instance_.serialize();
    call_plugin(instance_, "score_node", err, [&] {
      return vtable_.score_node(instance_.get(), hami_str{policy.data(), policy.size()}, &pod,
                                &node, &score, err.view());
    });
  }
  // Vendor placement terms (ABI 1.2) may take a score outside [0, 100];
  // without them the 1.0 range holds.
  const bool vendor_terms = node.vendor_score != 0.0 || node.vendor_neutral_score != 0.0;
  if (vendor_terms ? !std::isfinite(score) : !(score >= 0.0 && score <= 100.0)) {
    throw_invalid_output(instance_, "score_node",
                         "score " + std::to_string(score) +
                             (vendor_terms ? " is not finite" : " is outside [0, 100]"));
  }
  return score;
}

DeviceOrder SchedulingPluginHandle::order_devices(const hami_order_input& in) const {
  DeviceOrder result;
  result.order.resize(in.devices_len);
  result.fit_flags = order_devices_into(in, result.order);
  return result;
}

uint32_t SchedulingPluginHandle::order_devices_into(const hami_order_input& in,
                                                    std::span<size_t> order) const {
  if (vtable_.order_devices == nullptr) {
    throw PluginCallError(HAMI_UNIMPLEMENTED, call_message(instance_, "order_devices",
                                                           "not implemented by the plugin"));
  }
  if (order.size() < in.devices_len) {
    throw std::invalid_argument("order_devices: order has " + std::to_string(order.size()) +
                                " entries for " + std::to_string(in.devices_len) + " devices");
  }
  constexpr size_t kUnset = std::numeric_limits<size_t>::max();
  std::fill_n(order.begin(), in.devices_len, kUnset);
  hami_order_output out{};
  out.struct_size = static_cast<uint32_t>(sizeof out);
  out.order = order.data();
  ErrorBuffer err;
  {
    const auto lock = instance_.serialize();
    call_plugin(instance_, "order_devices", err,
                [&] { return vtable_.order_devices(instance_.get(), &in, &out, err.view()); });
  }
  // Up to 64 devices the permutation check keeps its marks in one word.
  uint64_t seen_bits = 0;
  std::vector<bool> seen_many(in.devices_len > 64 ? in.devices_len : 0, false);
  for (size_t i = 0; i < in.devices_len; ++i) {
    const size_t index = order[i];
    bool repeated = false;
    if (index < in.devices_len) {
      if (seen_many.empty()) {
        repeated = ((seen_bits >> index) & 1u) != 0;
        seen_bits |= uint64_t{1} << index;
      } else {
        repeated = seen_many[index];
        seen_many[index] = true;
      }
    }
    if (index >= in.devices_len || repeated) {
      throw_invalid_output(instance_, "order_devices",
                           "order is not a permutation of 0.." + std::to_string(in.devices_len) +
                               "-1 (entry " + std::to_string(i) + " is " +
                               (index == kUnset ? std::string("unset") : std::to_string(index)) +
                               ")");
    }
  }
  return out.fit_flags;
}

}  // namespace hami::host
