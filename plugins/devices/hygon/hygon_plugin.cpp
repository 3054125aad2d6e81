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
#include "standard_plugin.hpp"

namespace hami::devices::hygon {
namespace {

// S-FIT with Hygon's type selectors on the device type (HAMi checkDCUtype)
// and its UUID selectors; picks are typed with the vendor word, as HAMi
// writes the request's type.
constexpr ShareFitRules kFitRules{kVendor, kUseType, kNoUseType, kUseUuid, kNoUseUuid, true};

class HygonPlugin final : public StandardCodecPlugin {
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
    return device_request(r.count, r.memory_mib, r.memory_percent, r.cores);
  }

  void decode_node(const hami_node_view& node, const hami_device_sink& out) override {
    const KvList annotations(node.annotations, node.annotations_len);
    with_registration(annotations, kRegisterAnnotation, decode_register_colon,
                      [&](const RegisterDecoding& decoded) {
                        emit_inventory(decoded, annotations.find(kCordonAnnotation), {}, out);
                      });
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
    run_share_fit(kFitRules, in, out);
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
