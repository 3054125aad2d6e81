// hami/scheduling.hpp — writing a scheduling policy plugin
// (HAMI_KIND_SCHEDULING) in C++.
//
// Derive from hami::SchedulingPolicy, give the class a constructor
// `(const hami_host_info&, std::string_view config_json)`, and export it once
// per library:
//
//   HAMI_EXPORT_SCHEDULING_PLUGIN(Policies, "hami-policies", "1.0.0",
//                                 "binpack and spread", nullptr,
//                                 HAMI_FLAG_CONCURRENT_SAFE)
//
// A class that declares node policies overrides score_node; one that
// declares device policies overrides order_devices. The defaults fail with
// HAMI_UNIMPLEMENTED.
//
// Threading: every call may run concurrently on one instance
// (HAMI-PLUGIN-8); set HAMI_FLAG_CONCURRENT_SAFE.
#ifndef HAMI_SCHEDULING_HPP
#define HAMI_SCHEDULING_HPP

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "hami/plugin.hpp"
#include "hami/scheduling.h"

namespace hami {
inline namespace abi_v1 {

class SchedulingPolicy {
 public:
  SchedulingPolicy() = default;
  SchedulingPolicy(const SchedulingPolicy&) = delete;
  SchedulingPolicy& operator=(const SchedulingPolicy&) = delete;
  virtual ~SchedulingPolicy() = default;

  // The comma lists of policy names this instance implements; the strings
  // must stay valid until the instance is destroyed.
  virtual void describe(hami_policy_description& out) = 0;

  // A feasible node's score under `policy` (the full policy text), within
  // [0, 100]; higher is preferred.
  virtual double score_node(std::string_view /*policy*/, const hami_pod_view& /*pod*/,
                            const hami_node_usage& /*node*/) {
    throw Error(HAMI_UNIMPLEMENTED, "score_node is not implemented by this plugin");
  }

  // Writes a permutation of 0..in.devices_len-1 into out.order (try first
  // at index 0) and the HAMI_FIT_* flags for the vendor's fit.
  virtual void order_devices(const hami_order_input& /*in*/, hami_order_output& /*out*/) {
    throw Error(HAMI_UNIMPLEMENTED, "order_devices is not implemented by this plugin");
  }
};

namespace detail {

struct SchedulingTrampolines {
  static SchedulingPolicy& policy(hami_instance* instance) {
    return self<SchedulingPolicy>(instance);
  }

  static hami_status describe(hami_instance* instance, hami_policy_description* out,
                              hami_errbuf err) noexcept {
    return guard(err, [&] {
      require(out, "out");
      hami_policy_description value{};
      value.struct_size = static_cast<std::uint32_t>(sizeof value);
      policy(instance).describe(value);
      write_struct(out, value);
    });
  }

  static hami_status score_node(hami_instance* instance, hami_str policy_text,
                                const hami_pod_view* pod, const hami_node_usage* node,
                                double* score, hami_errbuf err) noexcept {
    return guard(err, [&] {
      if (score == nullptr) {
        throw Error(HAMI_INVALID_ARGUMENT, "score is NULL");
      }
      const hami_pod_view& p = require(pod, "pod");
      const hami_node_usage usage = read_struct(node, "node");
      *score = policy(instance).score_node(to_sv(policy_text), p, usage);
    });
  }

  static hami_status order_devices(hami_instance* instance, const hami_order_input* in,
                                   hami_order_output* out, hami_errbuf err) noexcept {
    return guard(err, [&] {
      const hami_order_input input = read_struct(in, "in");
      require(input.pod, "in->pod");
      hami_order_output output = read_struct(out, "out");
      if (input.devices_len != 0 && (input.devices == nullptr || output.order == nullptr)) {
        throw Error(HAMI_INVALID_ARGUMENT, "in->devices or out->order is NULL");
      }
      policy(instance).order_devices(input, output);
      write_struct(out, output);
    });
  }
};

template <class Impl>
struct SchedulingAdapter {
  static_assert(std::is_base_of_v<SchedulingPolicy, Impl>,
                "HAMI_EXPORT_SCHEDULING_PLUGIN: the class must derive from hami::SchedulingPolicy");
  static_assert(std::is_constructible_v<Impl, const hami_host_info&, std::string_view>,
                "HAMI_EXPORT_SCHEDULING_PLUGIN: the class needs a constructor "
                "(const hami_host_info&, std::string_view config_json)");

  static constexpr hami_scheduling_vtable vtable{
      static_cast<std::uint32_t>(sizeof(hami_scheduling_vtable)),
      &create_instance<SchedulingPolicy, Impl>,
      &destroy_instance<SchedulingPolicy>,
      &SchedulingTrampolines::describe,
      &SchedulingTrampolines::score_node,
      &SchedulingTrampolines::order_devices,
  };
};

}  // namespace detail
}  // namespace abi_v1
}  // namespace hami

// Exports `Class` as this library's scheduling plugin; arguments as for
// HAMI_EXPORT_DEVICE_PLUGIN (device.hpp).
#define HAMI_EXPORT_SCHEDULING_PLUGIN(Class, name, version, description, schema, flags)         \
  HAMI_DETAIL_EXPORT_NEGOTIATE(HAMI_KIND_SCHEDULING, name, version, description, schema, flags, \
                               &::hami::detail::SchedulingAdapter<Class>::vtable)

#endif  // HAMI_SCHEDULING_HPP
