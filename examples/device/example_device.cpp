// A complete device plugin for an imaginary accelerator, "Example vAccel":
// containers ask for example.com/vaccel (devices) and optionally
// example.com/vaccel-mem (MiB per device) and example.com/vaccel-cores
// (percent per device); nodes register their devices in the annotation
// example.com/node-vaccel-register (register_format.hpp); allocations are
// written in HAMi's grammar (allocation_format.hpp).
//
// Config: any JSON object (the plugin has no options; kSchema says so, and
// the host validates configs against it before create).
#include <algorithm>
#include <charconv>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "allocation_format.hpp"
#include "hami/device.hpp"
#include "register_format.hpp"

namespace {

constexpr std::string_view kCount = "example.com/vaccel";
constexpr std::string_view kMemory = "example.com/vaccel-mem";
constexpr std::string_view kCores = "example.com/vaccel-cores";
constexpr std::string_view kRegister = "example.com/node-vaccel-register";
constexpr std::string_view kAllocated = "example.com/vaccel-allocated";
constexpr std::string_view kToAllocate = "example.com/vaccel-to-allocate";

constexpr const char* kSchema = R"({"type": "object"})";

std::string_view view(hami_str s) {
  return s.ptr == nullptr ? std::string_view() : std::string_view(s.ptr, s.len);
}

// The value of `key` among `kvs`, or empty.
std::string_view lookup(const hami_kv* kvs, std::size_t len, std::string_view key) {
  for (std::size_t i = 0; i < len; ++i) {
    if (view(kvs[i].key) == key) {
      return view(kvs[i].value);
    }
  }
  return {};
}

template <class Int>
Int quantity(std::string_view text, std::string_view resource) {
  Int value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value < 0) {
    throw hami::Error(HAMI_INVALID_ARGUMENT, std::string(resource) + ": '" + std::string(text) +
                                                 "' is not a non-negative integer");
  }
  return value;
}

class ExampleDevice final : public hami::DevicePlugin {
 public:
  ExampleDevice(const hami_host_info& /*host*/, std::string_view config) {
    // The host validates configs against kSchema; a direct caller may not.
    const auto first = config.find_first_not_of(" \t\r\n");
    const auto last = config.find_last_not_of(" \t\r\n");
    if (first == std::string_view::npos || config[first] != '{' || config[last] != '}' ||
        first == last) {
      throw hami::Error(HAMI_INVALID_ARGUMENT, "config must be a JSON object");
    }
  }

  void describe(hami_device_description& out) override {
    out.vendor = hami::to_str("EXAMPLE");
    out.count_resource = hami::to_str(kCount);
    out.memory_resource = hami::to_str(kMemory);
    out.cores_resource = hami::to_str(kCores);
    out.register_annotation = hami::to_str(kRegister);
    out.to_allocate_annotation = hami::to_str(kToAllocate);
    out.allocated_annotation = hami::to_str(kAllocated);
    out.memory_factor = 1;
  }

  bool mutate_container(const hami_pod_view& pod, std::size_t idx,
                        const hami_container_mutation_sink& /*out*/) override {
    // No admission defaults: a container uses the vendor when it asks for it.
    return container_request(pod, idx).count > 0;
  }

  hami_device_request container_request(const hami_pod_view& pod, std::size_t idx) override {
    const hami_container_view& c = pod.containers[idx];
    hami_device_request r{};
    r.struct_size = sizeof r;
    const std::string_view count = lookup(c.limits, c.limits_len, kCount);
    if (count.empty()) {
      return r;
    }
    r.count = quantity<std::int32_t>(count, kCount);
    if (const auto mem = lookup(c.limits, c.limits_len, kMemory); !mem.empty()) {
      r.memory_mib = quantity<std::int64_t>(mem, kMemory);
    } else {
      r.memory_percent = 100;  // a whole device
    }
    if (const auto cores = lookup(c.limits, c.limits_len, kCores); !cores.empty()) {
      r.cores = quantity<std::int32_t>(cores, kCores);
    }
    return r;
  }

  void decode_node(const hami_node_view& node, const hami_device_sink& out) override {
    if (!has_annotation(node)) {
      throw hami::Error(HAMI_NOT_FOUND, "no " + std::string(kRegister) + " annotation");
    }
    const auto devices =
        example::parse_registration(lookup(node.annotations, node.annotations_len, kRegister));
    for (std::size_t i = 0; i < devices.size(); ++i) {
      const auto& d = devices[i];
      hami_device device{};
      device.struct_size = sizeof device;
      device.id = hami::to_str(d.id);
      device.type = hami::to_str(d.type);
      device.index = static_cast<std::uint32_t>(i);
      device.count = d.count;
      device.memory_mib = d.memory_mib;
      device.cores = d.cores;
      device.numa = 0;
      device.flags = d.healthy ? HAMI_DEVICE_HEALTHY : 0u;
      hami::emit_device(out, device);
    }
  }

  hami_health_result node_health(const hami_node_view& node, std::int64_t /*now_unix*/,
                                 const hami_annotation_sink& /*writes*/) override {
    hami_health_result h{};
    h.struct_size = sizeof h;
    if (!has_annotation(node)) {
      return h;  // not registered: unhealthy, nothing to write
    }
    try {
      const auto devices =
          example::parse_registration(lookup(node.annotations, node.annotations_len, kRegister));
      h.healthy = std::any_of(devices.begin(), devices.end(),
                              [](const example::RegisteredDevice& d) { return d.healthy; })
                      ? 1u
                      : 0u;
    } catch (const hami::Error&) {
      h.healthy = 0;
    }
    return h;
  }

  void fit(const hami_fit_input& in, hami_fit_output& out) override {
    const hami_device_request& req = *in.request;
    std::map<std::string, int> rejected;  // reason → devices
    out.picks_len = 0;
    for (std::size_t i = 0; i < in.devices_len && out.picks_len < out.picks_cap &&
                            out.picks_len < static_cast<std::size_t>(std::max(req.count, 0));
         ++i) {
      const hami_device_usage& u = in.devices[i];
      const hami_device& d = *u.device;
      const std::int64_t memory =
          req.memory_mib > 0 ? req.memory_mib : d.memory_mib * req.memory_percent / 100;
      if ((d.flags & HAMI_DEVICE_HEALTHY) == 0) {
        ++rejected["CardUnhealthy"];
      } else if (u.used >= d.count) {
        ++rejected["CardTimeSlicingExhausted"];
      } else if (d.memory_mib - u.used_memory_mib < memory) {
        ++rejected["CardInsufficientMemory"];
      } else if (d.cores - u.used_cores < req.cores) {
        ++rejected["CardInsufficientCore"];
      } else {
        out.picks[out.picks_len++] = hami_fit_pick{i, d.type, memory, req.cores};
      }
    }
    out.fits = req.count > 0 && out.picks_len == static_cast<std::size_t>(req.count) ? 1u : 0u;
    if (out.fits == 0u) {
      out.picks_len = 0;
      std::string reason;
      for (const auto& [why, n] : rejected) {  // std::map: sorted as strings
        reason += (reason.empty() ? "" : ", ") + std::to_string(n) + "/" +
                  std::to_string(in.devices_len) + " " + why;
      }
      if (reason.empty()) {
        reason = "0/" + std::to_string(in.devices_len) + " NoDevice";
      }
      if (out.reason.append != nullptr) {
        out.reason.append(out.reason.ctx, reason.data(), reason.size());
      }
    }
  }

  void encode_allocation(std::span<const hami_container_alloc> containers,
                         const hami_sink& out) override {
    const std::string value = example::encode_allocation(containers);
    if (out.append != nullptr) {
      out.append(out.ctx, value.data(), value.size());
    }
  }

  void decode_allocation(std::string_view value, const hami_allocation_sink& out) override {
    example::decode_allocation(value, out);
  }

 private:
  static bool has_annotation(const hami_node_view& node) {
    for (std::size_t i = 0; i < node.annotations_len; ++i) {
      if (view(node.annotations[i].key) == kRegister) {
        return true;
      }
    }
    return false;
  }
};

}  // namespace

HAMI_EXPORT_DEVICE_PLUGIN(ExampleDevice, "example-device", "1.0.0",
                          "an imaginary accelerator: example.com/vaccel", kSchema, 0)
