// Glue between the vendor logic and the SDK's DevicePlugin interface, shared
// by the vendor plugins: error translation and the replay of plain C++
// results into the host's sinks.
#ifndef HAMI_DEVICES_COMMON_BINDING_HPP
#define HAMI_DEVICES_COMMON_BINDING_HPP

#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "allocation_codec.hpp"
#include "container.hpp"
#include "errors.hpp"
#include "hami/device.hpp"
#include "kv_list.hpp"
#include "node_register.hpp"
#include "pair_scores.hpp"

namespace hami::devices {

// Runs `body`; InvalidInput becomes hami::Error(HAMI_INVALID_ARGUMENT) with
// the concatenated `context` parts (if any) in front of the message. The
// context is only assembled on failure: decode_node and fit are hot paths.
template <class F>
decltype(auto) translate(std::initializer_list<std::string_view> context, F&& body) {
  try {
    return body();
  } catch (const InvalidInput& e) {
    std::string message;
    for (const std::string_view part : context)
      message += part;
    if (!message.empty())
      message += ": ";
    message += e.what();
    throw Error(HAMI_INVALID_ARGUMENT, message);
  }
}

inline void replay(const ContainerMutation& m, const hami_container_mutation_sink& out) {
  for (const auto& [resource, quantity] : m.limits)
    set_limit(out, resource, quantity);
  for (const auto& [name, value] : m.env)
    add_env(out, name, value);
  if (m.runtime_class)
    set_runtime_class(out, *m.runtime_class);
}

// Reports a decoded registration's devices (cordon applied from
// `cordon_list`), each passed through `adjust(index, hami_device&)` first.
template <class Adjust>
void emit_devices(const RegisterDecoding& reg, std::optional<std::string_view> cordon_list,
                  const hami_device_sink& out, Adjust&& adjust) {
  for (std::size_t i = 0; i < reg.devices().size(); ++i) {
    const RegisteredDevice& d = reg.devices()[i];
    hami_device hd{};
    hd.struct_size = static_cast<std::uint32_t>(sizeof hd);
    hd.id = to_str(d.id);
    hd.type = to_str(d.type);
    hd.mode = to_str(d.mode);
    hd.index = d.index;
    hd.count = d.count;
    hd.memory_mib = d.devmem;
    hd.cores = d.devcore;
    hd.numa = d.numa;
    hd.flags = (d.health ? HAMI_DEVICE_HEALTHY : 0u) |
               (cordon_list && listed_in(*cordon_list, d.id) ? HAMI_DEVICE_CORDONED : 0u);
    adjust(i, hd);
    emit_device(out, hd);
  }
}

// Reports a decoded registration: devices (cordon applied from
// `cordon_list`; `attributes[i]`, when given, as device i's attributes),
// then the pair scores whose both ends are registered.
inline void emit_inventory(const RegisterDecoding& reg, std::optional<std::string_view> cordon_list,
                           std::span<const PairScore> scores, const hami_device_sink& out,
                           std::span<const std::string> attributes = {}) {
  emit_devices(reg, cordon_list, out, [&](std::size_t i, hami_device& hd) {
    if (i < attributes.size())
      hd.attributes = to_str(attributes[i]);
  });
  const auto registered = [&](std::string_view id) {
    for (const RegisteredDevice& d : reg.devices()) {
      if (d.id == id)
        return true;
    }
    return false;
  };
  for (const PairScore& s : scores) {
    if (registered(s.from) && registered(s.to))
      emit_pair_score(out, s.from, s.to, s.score);
  }
}

inline void emit_allocation(std::string_view value, const hami_allocation_sink& out) {
  decode_allocation(
      value, [&] { open_container(out); },
      [&](const AllocatedDevice& d) {
        hami_alloc_device ad{};
        ad.struct_size = static_cast<std::uint32_t>(sizeof ad);
        ad.id = to_str(d.id);
        ad.type = to_str(d.type);
        ad.memory_mib = d.memory_mib;
        ad.cores = d.cores;
        emit_alloc_device(out, ad);
      });
}

inline void write_allocation(std::span<const hami_container_alloc> containers,
                             const hami_sink& out) {
  std::string value;
  encode_allocation(containers, value);
  sink_append(out, value);
}

// Runs a vendor's fit `body(picks, reason)` (returning .fits and .picks_len)
// against the host's fit output: picks go to the host's array, the reason
// text to its sink only on failure.
template <class F>
void run_fit(hami_fit_output& out, F&& body) {
  const std::span<hami_fit_pick> picks =
      out.picks == nullptr ? std::span<hami_fit_pick>{} : std::span(out.picks, out.picks_cap);
  std::string reason;
  const auto r = translate({}, [&] { return body(picks, reason); });
  out.fits = r.fits ? 1u : 0u;
  out.picks_len = r.picks_len;
  if (!r.fits)
    sink_append(out.reason, reason);
}

// status.allocatable / status.capacity count as an integer (ceil, as Go's
// Quantity.Value()); 0 when absent or unparsable.
std::int64_t resource_count(const KvList& list, std::string_view resource);

// The node annotations of a vendor that runs HAMi's generic handshake.
struct HandshakeKeys {
  std::string_view handshake;       // hami.io/node-handshake-<word>
  std::string_view register_key;    // hami.io/node-<word>-register
  std::string_view count_resource;  // status.allocatable name
};

// HAMi's generic CheckHealth (§3.3) on `keys.handshake`: stamps
// `Requesting_<time>` when the value is not a request yet, and once a stamp
// is 60 s old judges the node by its allocatable count. One difference
// (HAMi X16): a node with neither the registration annotation nor an
// allocatable count has no such device and is left unstamped (healthy,
// nothing to write), instead of a GET and a PATCH per vendor per node.
hami_health_result handshake_health(const hami_node_view& node, std::int64_t now_unix,
                                    const HandshakeKeys& keys, const hami_annotation_sink& writes);

}  // namespace hami::devices

#endif  // HAMI_DEVICES_COMMON_BINDING_HPP
