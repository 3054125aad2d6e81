// vastai.so: HAMi v2.10's Vastai rules behind the device plugin ABI. This
// file binds the vendor logic (vastai_*.cpp, common/) to hami::DevicePlugin.
#include <string>
#include <string_view>
#include <vector>

#include "binding.hpp"
#include "hami/device.hpp"
#include "standard_plugin.hpp"
#include "vastai_config.hpp"
#include "vastai_die.hpp"
#include "vastai_fit.hpp"
#include "vastai_names.hpp"
#include "vastai_requests.hpp"
#include "vastai_score.hpp"

namespace hami::devices::vastai {
namespace {

// HAMi forces every device's Devcore to 100 (so the node score has a
// denominator); Vastai has no core resource otherwise.
constexpr std::int32_t kDeviceCores = 100;

class VastaiPlugin final : public StandardCodecPlugin {
 public:
  VastaiPlugin(const hami_host_info& host, std::string_view config_json)
      : host_(host),
        config_(translate({"vastai config"}, [&] { return parse_config(config_json); })) {}

  void describe(hami_device_description& out) override {
    out.vendor = to_str(kVendor);
    out.count_resource = to_str(config_.count_resource);
    out.register_annotation = to_str(kRegisterAnnotation);
    out.handshake_annotation = to_str(kHandshakeAnnotation);
    out.to_allocate_annotation = to_str(kToAllocateAnnotation);
    out.allocated_annotation = to_str(kAllocatedAnnotation);
    out.memory_factor = 1;
    out.cores_unit = HAMI_CORES_PERCENT;
    out.node_lock = HAMI_NODE_LOCK_SHARED;
  }

  bool mutate_container(const hami_pod_view& pod, std::size_t idx,
                        const hami_container_mutation_sink& /*out*/) override {
    return translate({}, [&] { return uses_vastai(config_, container_at(pod, idx)); });
  }

  hami_device_request container_request(const hami_pod_view& pod, std::size_t idx) override {
    const std::int32_t count =
        translate({}, [&] { return requested_count(config_, container_at(pod, idx)); });
    return device_request(count, 0, count > 0 ? 100 : 0, 0);
  }

  // HAMi's JSON DeviceInfo array; each device's custominfo die facts go to
  // its attributes (vastai_die.hpp) for fit and score_placement.
  void decode_node(const hami_node_view& node, const hami_device_sink& out) override {
    const KvList annotations(node.annotations, node.annotations_len);
    with_registration(annotations, kRegisterAnnotation, decode_register_json,
                      [&](const RegisterDecoding& decoded) {
                        std::vector<std::string> attributes;
                        attributes.reserve(decoded.devices().size());
                        for (const RegisteredDevice& d : decoded.devices())
                          attributes.push_back(encode_die_attributes(die_info(d)));
                        emit_devices(decoded, annotations.find(kCordonAnnotation), out,
                                     [&](std::size_t i, hami_device& hd) {
                                       hd.cores = kDeviceCores;
                                       hd.attributes = to_str(attributes[i]);
                                     });
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
    run_fit(out, [&](std::span<hami_fit_pick> picks, std::string& reason) {
      return vastai_fit(in, picks, reason);
    });
  }

  void score_placement(const hami_placement_score_input& in, hami_placement_score& out) override {
    out.score = translate({}, [&] { return placement_score(in); });
    out.policy_neutral = 0;  // X10: raw, as HAMi (vastai_score.hpp)
  }

 private:
  Host host_;
  VastaiConfig config_;
};

}  // namespace
}  // namespace hami::devices::vastai

HAMI_EXPORT_DEVICE_PLUGIN(
    hami::devices::vastai::VastaiPlugin, "vastai", "1.0.0",
    "Vastai device sharing rules (cards and dies), compatible with HAMi v2.10",
    hami::devices::vastai::kConfigSchema, HAMI_FLAG_CONCURRENT_SAFE)
