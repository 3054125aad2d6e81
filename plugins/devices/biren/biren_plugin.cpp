// biren.so: HAMi v2.10's Biren rules behind the device plugin ABI. This file
// binds the vendor logic (biren_*.cpp, common/) to hami::DevicePlugin.
#include <string>
#include <string_view>
#include <vector>

#include "binding.hpp"
#include "biren_config.hpp"
#include "biren_names.hpp"
#include "biren_node.hpp"
#include "biren_requests.hpp"
#include "hami/device.hpp"
#include "standard_plugin.hpp"

namespace hami::devices::biren {
namespace {

// S-FIT steps 1–5 (health, UUID selectors, count, mutex); no memory or
// core checks. Picks are typed with the vendor word, as HAMi writes the
// request's type.
constexpr ShareFitRules kFitRules{kVendor, {}, {}, kUseUuid, kNoUseUuid, false};

class BirenPlugin final : public StandardCodecPlugin {
 public:
  BirenPlugin(const hami_host_info& host, std::string_view config_json)
      : host_(host),
        config_(translate({"biren config"}, [&] { return parse_config(config_json); })) {}

  void describe(hami_device_description& out) override {
    out.vendor = to_str(kVendor);
    out.count_resource = to_str(config_.count_resource);
    out.register_annotation = to_str(kRegisterAnnotation);
    out.handshake_annotation = to_str(kHandshakeAnnotation);
    out.to_allocate_annotation = to_str(kToAllocateAnnotation);
    out.allocated_annotation = to_str(kAllocatedAnnotation);
    out.memory_factor = 1;
    out.cores_unit = HAMI_CORES_PERCENT;
  }

  bool mutate_container(const hami_pod_view& pod, std::size_t idx,
                        const hami_container_mutation_sink& /*out*/) override {
    return translate({}, [&] { return uses_biren(config_, container_at(pod, idx)); });
  }

  hami_device_request container_request(const hami_pod_view& pod, std::size_t idx) override {
    const std::int32_t count =
        translate({}, [&] { return requested_count(config_, container_at(pod, idx)); });
    return device_request(count, 0, count > 0 ? 100 : 0, 0);
  }

  void decode_node(const hami_node_view& node, const hami_device_sink& out) override {
    const KvList annotations(node.annotations, node.annotations_len);
    with_registration(annotations, kRegisterAnnotation, decode_register_json,
                      [&](const RegisterDecoding& decoded) {
                        std::vector<std::string> types;
                        types.reserve(decoded.devices().size());
                        for (const RegisteredDevice& d : decoded.devices())
                          types.push_back(reported_type(d.type));
                        emit_devices(decoded, annotations.find(kCordonAnnotation), out,
                                     [&](std::size_t i, hami_device& hd) {
                                       hd.type = to_str(types[i]);
                                       hd.cores = kDeviceCores;
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
    run_share_fit(kFitRules, in, out);
  }

 private:
  Host host_;
  BirenConfig config_;
};

}  // namespace
}  // namespace hami::devices::biren

HAMI_EXPORT_DEVICE_PLUGIN(hami::devices::biren::BirenPlugin, "biren", "1.0.0",
                          "Biren GPU sharing rules, compatible with HAMi v2.10",
                          hami::devices::biren::kConfigSchema, HAMI_FLAG_CONCURRENT_SAFE)
