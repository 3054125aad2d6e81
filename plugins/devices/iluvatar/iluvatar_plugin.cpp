// iluvatar.so: HAMi v2.10's Iluvatar rules behind the device plugin ABI, one
// instance per chip (vendor word). This file binds the vendor logic
// (iluvatar_*.cpp, common/) to hami::DevicePlugin.
#include <string>
#include <string_view>

#include "binding.hpp"
#include "hami/device.hpp"
#include "iluvatar_admission.hpp"
#include "iluvatar_config.hpp"
#include "iluvatar_requests.hpp"
#include "standard_plugin.hpp"

namespace hami::devices::iluvatar {
namespace {

constexpr std::string_view kCordonAnnotation = "hami.io/device-cordon";

class IluvatarPlugin final : public StandardCodecPlugin {
 public:
  IluvatarPlugin(const hami_host_info& host, std::string_view config_json)
      : host_(host),
        config_(translate({"iluvatar config"}, [&] { return parse_config(config_json); })),
        // S-FIT with the vendor word as the type check (the host hands only
        // devices whose type contains it) and HAMi's per-chip UUID keys;
        // picks are typed with the vendor word, as HAMi writes the request's.
        fit_rules_{config_.common_word,           {},  {}, config_.use_uuid_annotation,
                   config_.nouse_uuid_annotation, true} {}

  void describe(hami_device_description& out) override {
    out.vendor = to_str(config_.common_word);
    out.count_resource = to_str(config_.count_resource);
    out.memory_resource = to_str(config_.memory_resource);
    out.cores_resource = to_str(config_.cores_resource);
    out.register_annotation = to_str(config_.register_annotation);
    out.handshake_annotation = to_str(config_.handshake_annotation);
    out.to_allocate_annotation = to_str(config_.to_allocate_annotation);
    out.allocated_annotation = to_str(config_.allocated_annotation);
    out.memory_factor = kMemoryFactor;
    out.cores_unit = HAMI_CORES_PERCENT;
  }

  bool mutate_container(const hami_pod_view& pod, std::size_t idx,
                        const hami_container_mutation_sink& out) override {
    const ContainerMutation m =
        translate({}, [&] { return iluvatar::mutate_container(config_, container_at(pod, idx)); });
    replay(m, out);
    return m.uses_device;
  }

  hami_device_request container_request(const hami_pod_view& pod, std::size_t idx) override {
    const Request r =
        translate({}, [&] { return iluvatar::container_request(config_, container_at(pod, idx)); });
    return device_request(r.count, r.memory_mib, r.memory_percent, r.cores);
  }

  void decode_node(const hami_node_view& node, const hami_device_sink& out) override {
    const KvList annotations(node.annotations, node.annotations_len);
    with_registration(annotations, config_.register_annotation, decode_register_colon,
                      [&](const RegisterDecoding& decoded) {
                        emit_inventory(decoded, annotations.find(kCordonAnnotation), {}, out);
                      });
  }

  hami_health_result node_health(const hami_node_view& node, std::int64_t now_unix,
                                 const hami_annotation_sink& writes) override {
    return handshake_health(
        node, now_unix,
        {config_.handshake_annotation, config_.register_annotation, config_.count_resource},
        writes);
  }

  // HAMi's Iluvatar NodeCleanUp does nothing, and neither does this (§7.9b,
  // kept): the stale `Requesting_` stamp keeps the node unhealthy until its
  // device plugin reports again, where removing it would bring the stale
  // registration back for another 60 s.
  void node_cleanup(const hami_node_view& /*node*/,
                    const hami_annotation_sink& /*writes*/) override {}

  void fit(const hami_fit_input& in, hami_fit_output& out) override {
    run_share_fit(fit_rules_, in, out);
  }

 private:
  Host host_;
  IluvatarConfig config_;
  ShareFitRules fit_rules_;  // views into config_
};

}  // namespace
}  // namespace hami::devices::iluvatar

HAMI_EXPORT_DEVICE_PLUGIN(hami::devices::iluvatar::IluvatarPlugin, "iluvatar", "1.0.0",
                          "Iluvatar GPU sharing rules (one chip per instance), compatible with "
                          "HAMi v2.10",
                          hami::devices::iluvatar::kConfigSchema, HAMI_FLAG_CONCURRENT_SAFE)
