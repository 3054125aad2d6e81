// hygon.so: HAMi v2.10's Hygon DCU rules behind the device plugin ABI. This
// file binds the vendor logic (hygon_*.cpp, common/) to hami::DevicePlugin.
#include <algorithm>
#include <string>
#include <string_view>

#include "binding.hpp"
#include "hami/device.hpp"
#include "hygon_config.hpp"
#include "hygon_names.hpp"
#include "hygon_requests.hpp"
#include "share_fit.hpp"

namespace hami::devices::hygon {
namespace {

// S-FIT with Hygon's type selectors on the device type (HAMi checkDCUtype)
// and its UUID selectors; picks are typed with the vendor word, as HAMi
// writes the request's type.
constexpr ShareFitRules kFitRules{kVendor, kUseType, kNoUseType, kUseUuid, kNoUseUuid, true};

class HygonPlugin final : public DevicePlugin {
 public:
  HygonPlugin(const hami_host_info& host, std::string_view config_json)
      : host_(host),
        config_(translate({"hygon config"}, [&] { return parse_config(config_json); })) {}

  void describe(hami_device_description& out) override {
    out.vendor = to_str(kVendor);
    out.count_resource = to_str(config_.count_resource);
    out.memory_resource = to_str(config_.memory_resource);
    out.cores_resource = to_str(config_.cores_resource);
    out.register_annotation = to_str(kRegisterAnnotation);
    out.handshake_annotation = to_str(kHandshakeAnnotation);
    out.to_allocate_annotation = to_str(kToAllocateAnnotation);
    out.allocated_annotation = to_str(kAllocatedAnnotation);
    out.memory_factor = std::max(config_.memory_factor, 1);
    out.cores_unit = HAMI_CORES_PERCENT;
  }

  bool mutate_container(const hami_pod_view& pod, std::size_t idx,
                        const hami_container_mutation_sink& /*out*/) override {
    return translate({}, [&] { return uses_dcu(config_, container_at(pod, idx)); });
  }

  hami_device_request container_request(const hami_pod_view& pod, std::size_t idx) override {
    const Request r =
        translate({}, [&] { return hygon::container_request(config_, container_at(pod, idx)); });
    hami_device_request out{};
    out.struct_size = static_cast<std::uint32_t>(sizeof out);
    out.count = r.count;
    out.memory_mib = r.memory_mib;
    out.memory_percent = r.memory_percent;
    out.cores = r.cores;
    return out;
  }

  void decode_node(const hami_node_view& node, const hami_device_sink& out) override {
    const KvList annotations(node.annotations, node.annotations_len);
    const auto reg = annotations.find(kRegisterAnnotation);
    if (!reg)
      throw Error(HAMI_NOT_FOUND, "annos not found " + std::string(kRegisterAnnotation));
    const RegisterDecoding decoded = translate({}, [&] { return decode_register_colon(*reg); });
    if (decoded.devices().empty())
      throw Error(HAMI_INVALID_ARGUMENT, "no gpu found on node");
    emit_inventory(decoded, annotations.find(kCordonAnnotation), {}, out);
  }

  hami_health_result node_health(const hami_node_view& node, std::int64_t now_unix,
                                 const hami_annotation_sink& writes) override {
    return handshake_health(node, now_unix,
                            {kHandshakeAnnotation, kRegisterAnnotation, config_.count_resource},
                            writes);
  }

  void node_cleanup(const hami_node_view& /*node*/, const hami_annotation_sink& writes) override {
    remove_annotation(writes, kHandshakeAnnotation);
  }

  void fit(const hami_fit_input& in, hami_fit_output& out) override {
    run_fit(out, [&](std::span<hami_fit_pick> picks, std::string& reason) {
      return share_fit(kFitRules, in, picks, reason);
    });
  }

  void encode_allocation(std::span<const hami_container_alloc> containers,
                         const hami_sink& out) override {
    translate({}, [&] { write_allocation(containers, out); });
  }

  void decode_allocation(std::string_view value, const hami_allocation_sink& out) override {
    translate({}, [&] { emit_allocation(value, out); });
  }

 private:
  Host host_;
  HygonConfig config_;
};

}  // namespace
}  // namespace hami::devices::hygon

HAMI_EXPORT_DEVICE_PLUGIN(hami::devices::hygon::HygonPlugin, "hygon", "1.0.0",
                          "Hygon DCU sharing rules, compatible with HAMi v2.10",
                          hami::devices::hygon::kConfigSchema, HAMI_FLAG_CONCURRENT_SAFE)
