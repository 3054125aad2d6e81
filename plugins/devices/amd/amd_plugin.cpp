// amd.so: HAMi v2.10's AMD GPU rules behind the device plugin ABI. This file
// only binds the vendor logic (amd_*.cpp) to hami::DevicePlugin.
#include <string>
#include <string_view>

#include "amd_admission.hpp"
#include "amd_config.hpp"
#include "amd_fit.hpp"
#include "amd_names.hpp"
#include "amd_requests.hpp"
#include "binding.hpp"
#include "hami/device.hpp"
#include "standard_plugin.hpp"

namespace hami::devices::amd {
namespace {

class AmdPlugin final : public StandardCodecPlugin {
 public:
  AmdPlugin(const hami_host_info& host, std::string_view config_json)
      : host_(host),
        config_(translate({"amd config"}, [&] { return parse_config(config_json); })) {}

  void describe(hami_device_description& out) override {
    out.vendor = to_str(kVendor);
    out.count_resource = to_str(config_.count_resource);
    out.memory_resource = to_str(config_.memory_resource);
    out.cores_resource = to_str(config_.cores_resource);
    out.register_annotation = to_str(kRegisterAnnotation);
    out.to_allocate_annotation = to_str(kToAllocateAnnotation);
    out.allocated_annotation = to_str(kAllocatedAnnotation);
    out.memory_factor = 1;
    // Devices register their compute units (devcore), and requests ask
    // for a number of them.
    out.cores_unit = HAMI_CORES_COUNT;
  }

  bool mutate_container(const hami_pod_view& pod, std::size_t idx,
                        const hami_container_mutation_sink& out) override {
    const ContainerMutation m =
        translate({}, [&] { return amd::mutate_container(config_, container_at(pod, idx)); });
    replay(m, out);
    return m.uses_device;
  }

  hami_device_request container_request(const hami_pod_view& pod, std::size_t idx) override {
    const Request r =
        translate({}, [&] { return amd::container_request(config_, container_at(pod, idx)); });
    return device_request(r.count, r.memory_mib, 0, r.cores);
  }

  void decode_node(const hami_node_view& node, const hami_device_sink& out) override {
    const KvList annotations(node.annotations, node.annotations_len);
    const std::string_view node_name = to_sv(node.name);
    const auto reg = annotations.find(kRegisterAnnotation);
    if (!reg) {
      throw Error(HAMI_NOT_FOUND, "node " + std::string(node_name) + " has no " +
                                      std::string(kRegisterAnnotation) + " annotation");
    }
    const RegisterDecoding decoded =
        translate({"node ", node_name, ": ", kRegisterAnnotation},
                  [&] { return decode_register(*reg, RegisterForm::Json); });
    emit_inventory(decoded, annotations.find(kCordonAnnotation), {}, out);
  }

  // HAMi §3.3: healthy while status.capacity lists AMD GPUs, and the
  // inventory is re-read on every pass (AMD has no handshake).
  hami_health_result node_health(const hami_node_view& node, std::int64_t /*now_unix*/,
                                 const hami_annotation_sink& /*writes*/) override {
    const bool present =
        resource_count(KvList(node.capacity, node.capacity_len), config_.count_resource) > 0;
    hami_health_result out{};
    out.struct_size = static_cast<std::uint32_t>(sizeof out);
    out.healthy = present ? 1u : 0u;
    out.needs_update = present ? 1u : 0u;
    return out;
  }

  // HAMi removes the AMD registration of an unhealthy node; the AMD device
  // plugin writes it again when the node recovers.
  void node_cleanup(const hami_node_view& /*node*/, const hami_annotation_sink& writes) override {
    remove_annotation(writes, kRegisterAnnotation);
  }

  void fit(const hami_fit_input& in, hami_fit_output& out) override {
    run_fit(out, [&](std::span<hami_fit_pick> picks, std::string& reason) {
      return amd::fit(in, picks, reason);
    });
  }

 private:
  Host host_;
  AmdConfig config_;
};

}  // namespace
}  // namespace hami::devices::amd

HAMI_EXPORT_DEVICE_PLUGIN(hami::devices::amd::AmdPlugin, "amd", "1.0.0",
                          "AMD GPU sharing rules, compatible with HAMi v2.10",
                          hami::devices::amd::kConfigSchema, HAMI_FLAG_CONCURRENT_SAFE)
