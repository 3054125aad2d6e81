// hami/device.hpp — writing a device plugin (HAMI_KIND_DEVICE) in C++.
//
// Derive from hami::DevicePlugin, give the class a constructor
// `(const hami_host_info&, std::string_view config_json)`, and export it once
// per library:
//
//   class Nvidia final : public hami::DevicePlugin { ... };
//   HAMI_EXPORT_DEVICE_PLUGIN(Nvidia, "nvidia", "1.0.0", "NVIDIA vGPU rules",
//                             kNvidiaSchema, 0)
//
// The macro defines hami_plugin_negotiate and a vtable of noexcept
// trampolines. Each trampoline checks the host's struct sizes, calls the
// virtual below inside the exception barrier (plugin.hpp), and reports a
// thrown hami::Error as its status, any other exception as HAMI_INTERNAL.
// Inputs are the host's own C views, passed through without copying; they
// are borrowed for the call (HAMI-PLUGIN-3). Small in/out structs are handed
// to the virtuals as full-size copies, so members the host does not know
// read as zero and are never written past the host's struct_size.
//
// Threading: without HAMI_FLAG_CONCURRENT_SAFE in `flags`, the host never
// calls one instance from two threads at once (HAMI-HOST-8).
#ifndef HAMI_DEVICE_HPP
#define HAMI_DEVICE_HPP

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

#include "hami/device.h"
#include "hami/plugin.hpp"

namespace hami {
inline namespace abi_v1 {

class DevicePlugin {
 public:
  DevicePlugin() = default;
  DevicePlugin(const DevicePlugin&) = delete;
  DevicePlugin& operator=(const DevicePlugin&) = delete;
  virtual ~DevicePlugin() = default;

  // Static facts about the vendor; strings must stay valid until the
  // instance is destroyed (keep them in members).
  virtual void describe(hami_device_description& out) = 0;

  // Admission: adds defaults to container `idx` through `out`; returns
  // whether the container uses this vendor afterwards. Throw
  // hami::Error(HAMI_INVALID_ARGUMENT, msg) to deny the pod with msg.
  virtual bool mutate_container(const hami_pod_view& pod, std::size_t idx,
                                const hami_container_mutation_sink& out) = 0;

  // Container `idx`'s demand on this vendor; count 0 means none. Throw
  // hami::Error(HAMI_INVALID_ARGUMENT, msg) for an unusable value.
  virtual hami_device_request container_request(const hami_pod_view& pod, std::size_t idx) = 0;

  // Reports the node's devices (and pair scores) through `out`. Throw
  // HAMI_NOT_FOUND when the node has no registration of this vendor,
  // HAMI_INVALID_ARGUMENT when it is malformed.
  virtual void decode_node(const hami_node_view& node, const hami_device_sink& out) = 0;

  // Health at `now_unix`; annotation writes (handshake) go through `writes`.
  virtual hami_health_result node_health(const hami_node_view& node, std::int64_t now_unix,
                                         const hami_annotation_sink& writes) = 0;

  // Forget an unhealthy node and name annotations to remove. Optional.
  virtual void node_cleanup(const hami_node_view& /*node*/,
                            const hami_annotation_sink& /*writes*/) {}

  // Hot path: place one container's request. Fill out.picks[0..], set
  // out.picks_len and out.fits; append the reason to out.reason on no-fit.
  virtual void fit(const hami_fit_input& in, hami_fit_output& out) = 0;

  // The allocation annotation value, one segment per container.
  virtual void encode_allocation(std::span<const hami_container_alloc> containers,
                                 const hami_sink& out) = 0;

  // Parses an allocation annotation value into `out`.
  virtual void decode_allocation(std::string_view value, const hami_allocation_sink& out) = 0;

  // ---- Since ABI 1.1; optional ----
  // The export macro puts a call in the vtable only when the class
  // overrides it; otherwise the member is NULL and the host behaves as 1.0.

  // Further pod annotations for an allocation of `pod` on `node_name`,
  // through `writes` (keys listed in describe's allocation_annotations).
  virtual void annotate_allocation(const hami_pod_view& /*pod*/, std::string_view /*node_name*/,
                                   std::span<const hami_placed_container> /*containers*/,
                                   std::int64_t /*now_unix*/,
                                   const hami_annotation_sink& /*writes*/) {}

  // The pod's allocation of this vendor with each pick's data. Throw
  // HAMI_NOT_FOUND when the pod has no allocation of this vendor.
  virtual void decode_pod_allocation(const hami_pod_view& /*pod*/,
                                     const hami_placed_sink& /*out*/) {}

  // The partitions the pod's allocation holds, for partition_metrics.
  virtual void describe_partitions(const hami_pod_view& /*pod*/,
                                   const hami_partition_sink& /*out*/) {}

  // ---- Since ABI 1.2; optional ----

  // The vendor's term of the node score for the pod's placement on a node
  // (HAMI-HOST-16); `out.score` and `out.policy_neutral` start at 0.
  virtual void score_placement(const hami_placement_score_input& /*in*/,
                               hami_placement_score& /*out*/) {}
};

// Sink helpers: each checks that the host's sink has the function it calls
// and fails the call with HAMI_FAILED_PRECONDITION when it does not.
namespace detail {
[[noreturn]] inline void missing_sink_function(const char* sink, const char* fn) {
  throw Error(HAMI_FAILED_PRECONDITION,
              std::string("host's ") + sink + " has no " + fn + " function");
}
}  // namespace detail

inline void set_limit(const hami_container_mutation_sink& s, std::string_view resource,
                      std::string_view quantity) {
  if (s.set_limit == nullptr) {
    detail::missing_sink_function("hami_container_mutation_sink", "set_limit");
  }
  s.set_limit(s.ctx, to_str(resource), to_str(quantity));
}

inline void add_env(const hami_container_mutation_sink& s, std::string_view name,
                    std::string_view value) {
  if (s.add_env == nullptr) {
    detail::missing_sink_function("hami_container_mutation_sink", "add_env");
  }
  s.add_env(s.ctx, to_str(name), to_str(value));
}

inline void set_runtime_class(const hami_container_mutation_sink& s, std::string_view name) {
  if (s.set_runtime_class == nullptr) {
    detail::missing_sink_function("hami_container_mutation_sink", "set_runtime_class");
  }
  s.set_runtime_class(s.ctx, to_str(name));
}

// ABI 1.1 (HAMI-HOST-14): false, and nothing done, when the host's sink
// predates the call (a 1.0 host); throws when it has the member but NULL.
inline bool set_request(const hami_container_mutation_sink& s, std::string_view resource,
                        std::string_view quantity) {
  if (s.struct_size < offsetof(hami_container_mutation_sink, set_request) + sizeof s.set_request)
    return false;
  if (s.set_request == nullptr) {
    detail::missing_sink_function("hami_container_mutation_sink", "set_request");
  }
  s.set_request(s.ctx, to_str(resource), to_str(quantity));
  return true;
}

inline bool set_pod_annotation(const hami_container_mutation_sink& s, std::string_view key,
                               std::string_view value) {
  if (s.struct_size <
      offsetof(hami_container_mutation_sink, set_pod_annotation) + sizeof s.set_pod_annotation)
    return false;
  if (s.set_pod_annotation == nullptr) {
    detail::missing_sink_function("hami_container_mutation_sink", "set_pod_annotation");
  }
  s.set_pod_annotation(s.ctx, to_str(key), to_str(value));
  return true;
}

inline void emit_device(const hami_device_sink& s, const hami_device& device) {
  if (s.device == nullptr) {
    detail::missing_sink_function("hami_device_sink", "device");
  }
  s.device(s.ctx, &device);
}

inline void emit_pair_score(const hami_device_sink& s, std::string_view from_id,
                            std::string_view to_id, std::int32_t score) {
  if (s.pair_score == nullptr) {
    detail::missing_sink_function("hami_device_sink", "pair_score");
  }
  s.pair_score(s.ctx, to_str(from_id), to_str(to_id), score);
}

inline void set_annotation(const hami_annotation_sink& s, std::string_view key,
                           std::string_view value) {
  if (s.set == nullptr) {
    detail::missing_sink_function("hami_annotation_sink", "set");
  }
  s.set(s.ctx, to_str(key), to_str(value));
}

inline void remove_annotation(const hami_annotation_sink& s, std::string_view key) {
  if (s.remove == nullptr) {
    detail::missing_sink_function("hami_annotation_sink", "remove");
  }
  s.remove(s.ctx, to_str(key));
}

inline void open_container(const hami_allocation_sink& s) {
  if (s.container == nullptr) {
    detail::missing_sink_function("hami_allocation_sink", "container");
  }
  s.container(s.ctx);
}

inline void emit_alloc_device(const hami_allocation_sink& s, const hami_alloc_device& device) {
  if (s.device == nullptr) {
    detail::missing_sink_function("hami_allocation_sink", "device");
  }
  s.device(s.ctx, &device);
}

inline void open_container(const hami_placed_sink& s) {
  if (s.container == nullptr) {
    detail::missing_sink_function("hami_placed_sink", "container");
  }
  s.container(s.ctx);
}

inline void emit_placed_device(const hami_placed_sink& s, const hami_placed_device& device) {
  if (s.device == nullptr) {
    detail::missing_sink_function("hami_placed_sink", "device");
  }
  s.device(s.ctx, &device);
}

inline void emit_partition(const hami_partition_sink& s, std::size_t family,
                           std::string_view device_id, std::span<const hami_str> values) {
  if (s.partition == nullptr) {
    detail::missing_sink_function("hami_partition_sink", "partition");
  }
  s.partition(s.ctx, family, to_str(device_id), values.data(), values.size());
}

// Records vendor data for pick `pick` (ABI 1.1). False when the host is
// older and offers no place for it.
inline bool set_pick_data(const hami_fit_output& out, std::size_t pick, std::string_view data) {
  if (out.set_pick_data == nullptr) {
    return false;
  }
  out.set_pick_data(out.pick_data_ctx, pick, to_str(data));
  return true;
}

// What is held on device `device` of the fit input (ABI 1.1); empty from a
// 1.0 host.
inline std::span<const hami_str> device_holds(const hami_fit_input& in, std::size_t device) {
  if (in.device_holds == nullptr || device >= in.devices_len) {
    return {};
  }
  const hami_holds& h = in.device_holds[device];
  if (h.len == 0 || h.items == nullptr) {
    return {};
  }
  return {h.items, h.len};
}

namespace detail {

// Trampolines shared by every device plugin class; only `create` depends on
// the class and lives in DeviceAdapter.
struct DeviceTrampolines {
  static DevicePlugin& plugin(hami_instance* instance) { return self<DevicePlugin>(instance); }

  static const hami_pod_view& pod_with_container(const hami_pod_view* pod, std::size_t idx) {
    const hami_pod_view& p = require(pod, "pod");
    if (idx >= p.containers_len) {
      throw Error(HAMI_INVALID_ARGUMENT, "container index " + std::to_string(idx) +
                                             " out of range (pod has " +
                                             std::to_string(p.containers_len) + " containers)");
    }
    return p;
  }

  static hami_status describe(hami_instance* instance, hami_device_description* out,
                              hami_errbuf err) noexcept {
    return guard(err, [&] {
      require(out, "out");
      hami_device_description value{};
      value.struct_size = static_cast<std::uint32_t>(sizeof value);
      plugin(instance).describe(value);
      write_struct(out, value);
    });
  }

  static hami_status mutate_container(hami_instance* instance, const hami_pod_view* pod,
                                      std::size_t idx, const hami_container_mutation_sink* out,
                                      std::uint32_t* uses_device, hami_errbuf err) noexcept {
    return guard(err, [&] {
      if (uses_device == nullptr) {
        throw Error(HAMI_INVALID_ARGUMENT, "uses_device is NULL");
      }
      *uses_device = 0;
      const hami_pod_view& p = pod_with_container(pod, idx);
      const hami_container_mutation_sink& sink = require(out, "out");
      *uses_device = plugin(instance).mutate_container(p, idx, sink) ? 1u : 0u;
    });
  }

  static hami_status container_request(hami_instance* instance, const hami_pod_view* pod,
                                       std::size_t idx, hami_device_request* out,
                                       hami_errbuf err) noexcept {
    hami_device_request result{};
    const hami_status status = guard(err, [&] {
      require(out, "out");
      const hami_pod_view& p = pod_with_container(pod, idx);
      result = plugin(instance).container_request(p, idx);
    });
    if (out == nullptr || out->struct_size < v1_0_size<hami_device_request>) {
      return status;  // already failed on `out`; there is nothing to write to
    }
    if (status != HAMI_OK) {
      result = hami_device_request{};  // the contract: on error *out reads count 0
    }
    result.struct_size = static_cast<std::uint32_t>(sizeof result);
    copy_out(out, result);
    return status;
  }

  static hami_status decode_node(hami_instance* instance, const hami_node_view* node,
                                 const hami_device_sink* out, hami_errbuf err) noexcept {
    return guard(err, [&] {
      const hami_node_view& n = require(node, "node");
      const hami_device_sink& sink = require(out, "out");
      plugin(instance).decode_node(n, sink);
    });
  }

  static hami_status node_health(hami_instance* instance, const hami_node_view* node,
                                 std::int64_t now_unix, hami_health_result* out,
                                 const hami_annotation_sink* writes, hami_errbuf err) noexcept {
    return guard(err, [&] {
      const hami_node_view& n = require(node, "node");
      require(out, "out");
      const hami_annotation_sink& sink = require(writes, "writes");
      hami_health_result result = plugin(instance).node_health(n, now_unix, sink);
      result.struct_size = static_cast<std::uint32_t>(sizeof result);
      write_struct(out, result);
    });
  }

  static hami_status node_cleanup(hami_instance* instance, const hami_node_view* node,
                                  const hami_annotation_sink* writes, hami_errbuf err) noexcept {
    return guard(err, [&] {
      const hami_node_view& n = require(node, "node");
      const hami_annotation_sink& sink = require(writes, "writes");
      plugin(instance).node_cleanup(n, sink);
    });
  }

  static hami_status fit(hami_instance* instance, const hami_fit_input* in, hami_fit_output* out,
                         hami_errbuf err) noexcept {
    return guard(err, [&] {
      const hami_fit_input input = read_struct(in, "in");
      require(input.pod, "in->pod");
      require(input.request, "in->request");
      if (input.devices_len != 0 && input.devices == nullptr) {
        throw Error(HAMI_INVALID_ARGUMENT, "in->devices is NULL");
      }
      hami_fit_output output = read_struct(out, "out");
      output.picks_len = 0;
      output.fits = 0;
      plugin(instance).fit(input, output);
      if (output.picks_len > output.picks_cap) {
        throw Error(HAMI_INTERNAL, "fit reported more picks than picks_cap");
      }
      write_struct(out, output);
    });
  }

  static hami_status encode_allocation(hami_instance* instance,
                                       const hami_container_alloc* containers,
                                       std::size_t containers_len, hami_sink out,
                                       hami_errbuf err) noexcept {
    return guard(err, [&] {
      if (containers_len != 0 && containers == nullptr) {
        throw Error(HAMI_INVALID_ARGUMENT, "containers is NULL");
      }
      const std::span<const hami_container_alloc> view =
          containers_len == 0 ? std::span<const hami_container_alloc>{}
                              : std::span<const hami_container_alloc>{containers, containers_len};
      plugin(instance).encode_allocation(view, out);
    });
  }

  static hami_status decode_allocation(hami_instance* instance, hami_str value,
                                       const hami_allocation_sink* out, hami_errbuf err) noexcept {
    return guard(err, [&] {
      const hami_allocation_sink& sink = require(out, "out");
      plugin(instance).decode_allocation(to_sv(value), sink);
    });
  }

  static hami_status annotate_allocation(hami_instance* instance, const hami_pod_view* pod,
                                         hami_str node_name,
                                         const hami_placed_container* containers,
                                         std::size_t containers_len, std::int64_t now_unix,
                                         const hami_annotation_sink* writes,
                                         hami_errbuf err) noexcept {
    return guard(err, [&] {
      const hami_pod_view& p = require(pod, "pod");
      const hami_annotation_sink& sink = require(writes, "writes");
      if (containers_len != 0 && containers == nullptr) {
        throw Error(HAMI_INVALID_ARGUMENT, "containers is NULL");
      }
      const std::span<const hami_placed_container> view =
          containers_len == 0 ? std::span<const hami_placed_container>{}
                              : std::span<const hami_placed_container>{containers, containers_len};
      plugin(instance).annotate_allocation(p, to_sv(node_name), view, now_unix, sink);
    });
  }

  static hami_status decode_pod_allocation(hami_instance* instance, const hami_pod_view* pod,
                                           const hami_placed_sink* out, hami_errbuf err) noexcept {
    return guard(err, [&] {
      const hami_pod_view& p = require(pod, "pod");
      const hami_placed_sink& sink = require(out, "out");
      plugin(instance).decode_pod_allocation(p, sink);
    });
  }

  static hami_status describe_partitions(hami_instance* instance, const hami_pod_view* pod,
                                         const hami_partition_sink* out, hami_errbuf err) noexcept {
    return guard(err, [&] {
      const hami_pod_view& p = require(pod, "pod");
      const hami_partition_sink& sink = require(out, "out");
      plugin(instance).describe_partitions(p, sink);
    });
  }

  static hami_status score_placement(hami_instance* instance, const hami_placement_score_input* in,
                                     hami_placement_score* out, hami_errbuf err) noexcept {
    return guard(err, [&] {
      const hami_placement_score_input input = read_struct(in, "in");
      require(input.pod, "in->pod");
      if (input.devices_len != 0 && input.devices == nullptr) {
        throw Error(HAMI_INVALID_ARGUMENT, "in->devices is NULL");
      }
      if (input.containers_len != 0 && input.containers == nullptr) {
        throw Error(HAMI_INVALID_ARGUMENT, "in->containers is NULL");
      }
      require(out, "out");
      hami_placement_score result{};
      result.struct_size = static_cast<std::uint32_t>(sizeof result);
      plugin(instance).score_placement(input, result);
      write_struct(out, result);
    });
  }
};

template <class Impl>
struct DeviceAdapter {
  static_assert(std::is_base_of_v<DevicePlugin, Impl>,
                "HAMI_EXPORT_DEVICE_PLUGIN: the class must derive from hami::DevicePlugin");
  static_assert(std::is_constructible_v<Impl, const hami_host_info&, std::string_view>,
                "HAMI_EXPORT_DEVICE_PLUGIN: the class needs a constructor "
                "(const hami_host_info&, std::string_view config_json)");

  // Whether Impl (or a base between it and DevicePlugin) overrides an
  // optional call: &Impl::f names DevicePlugin's member when it does not.
  static constexpr bool overrides_annotate =
      !std::is_same_v<decltype(&Impl::annotate_allocation),
                      decltype(&DevicePlugin::annotate_allocation)>;
  static constexpr bool overrides_decode_pod =
      !std::is_same_v<decltype(&Impl::decode_pod_allocation),
                      decltype(&DevicePlugin::decode_pod_allocation)>;
  static constexpr bool overrides_partitions =
      !std::is_same_v<decltype(&Impl::describe_partitions),
                      decltype(&DevicePlugin::describe_partitions)>;
  static constexpr bool overrides_score =
      !std::is_same_v<decltype(&Impl::score_placement), decltype(&DevicePlugin::score_placement)>;

  static constexpr hami_device_vtable vtable{
      static_cast<std::uint32_t>(sizeof(hami_device_vtable)),
      &create_instance<DevicePlugin, Impl>,
      &destroy_instance<DevicePlugin>,
      &DeviceTrampolines::describe,
      &DeviceTrampolines::mutate_container,
      &DeviceTrampolines::container_request,
      &DeviceTrampolines::decode_node,
      &DeviceTrampolines::node_health,
      &DeviceTrampolines::node_cleanup,
      &DeviceTrampolines::fit,
      &DeviceTrampolines::encode_allocation,
      &DeviceTrampolines::decode_allocation,
      overrides_annotate ? &DeviceTrampolines::annotate_allocation : nullptr,
      overrides_decode_pod ? &DeviceTrampolines::decode_pod_allocation : nullptr,
      overrides_partitions ? &DeviceTrampolines::describe_partitions : nullptr,
      overrides_score ? &DeviceTrampolines::score_placement : nullptr,
  };
};

}  // namespace detail
}  // namespace abi_v1
}  // namespace hami

// Exports `Class` as this library's device plugin. `name`, `version` and
// `description` are string literals; `schema` is a NUL-terminated JSON Schema
// (draft 4) in static storage, or nullptr; `flags` is HAMI_FLAG_* bits.
// Use once per library, at namespace scope.
#define HAMI_EXPORT_DEVICE_PLUGIN(Class, name, version, description, schema, flags)         \
  HAMI_DETAIL_EXPORT_NEGOTIATE(HAMI_KIND_DEVICE, name, version, description, schema, flags, \
                               &::hami::detail::DeviceAdapter<Class>::vtable)

#endif  // HAMI_DEVICE_HPP
