// ascend.so: HAMi v2.10's Ascend NPU rules behind the device plugin ABI, one
// instance per chip (an element of HAMi's `vnpus.configs`). This file binds
// the vendor logic (ascend_*.cpp, common/) to hami::DevicePlugin.
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "ascend_admission.hpp"
#include "ascend_config.hpp"
#include "ascend_fit.hpp"
#include "ascend_names.hpp"
#include "ascend_node.hpp"
#include "ascend_requests.hpp"
#include "ascend_runtime_info.hpp"
#include "ascend_score.hpp"
#include "binding.hpp"
#include "hami/device.hpp"
#include "standard_plugin.hpp"

namespace hami::devices::ascend {
namespace {

class AscendPlugin final : public StandardCodecPlugin {
 public:
  AscendPlugin(const hami_host_info& host, std::string_view config_json)
      : host_(host),
        config_(translate({"ascend config"}, [&] { return parse_config(config_json); })),
        allocation_annotations_{to_str(config_.runtime_info_annotation),
                                to_str(kPredicateTimeAnnotation)},
        fit_rules_{config_.common_word, config_.use_uuid_annotation, config_.nouse_uuid_annotation,
                   config_.network_topology(), config_.module_pairs()} {}

  void describe(hami_device_description& out) override {
    out.vendor = to_str(config_.common_word);
    out.count_resource = to_str(config_.count_resource);
    out.memory_resource = to_str(config_.memory_resource);
    out.cores_resource = to_str(config_.cores_resource);
    out.register_annotation = to_str(config_.register_annotation);
    out.handshake_annotation = to_str(config_.handshake_annotation);
    out.to_allocate_annotation = to_str(config_.to_allocate_annotation);
    out.allocated_annotation = to_str(config_.allocated_annotation);
    out.memory_factor = config_.effective_memory_factor();
    out.cores_unit = HAMI_CORES_PERCENT;
    out.allocation_annotations = allocation_annotations_.data();
    out.allocation_annotations_len = allocation_annotations_.size();
    out.node_lock = HAMI_NODE_LOCK_SHARED;
  }

  bool mutate_container(const hami_pod_view& pod, std::size_t idx,
                        const hami_container_mutation_sink& out) override {
    const AscendMutation m = translate({}, [&] {
      const hami_container_view& view = pod.containers[idx];
      std::vector<std::string_view> limit_names;
      limit_names.reserve(view.limits_len);
      for (std::size_t i = 0; i < view.limits_len; ++i)
        limit_names.push_back(to_sv(view.limits[i].key));
      return ascend::mutate_container(config_, container_at(pod, idx),
                                      KvList(pod.annotations, pod.annotations_len), limit_names);
    });
    for (const auto& [resource, quantity] : m.limits)
      set_limit(out, resource, quantity);
    // A 1.0 host offers no set_request; the limits are then all it gets.
    for (const auto& [resource, quantity] : m.requests)
      set_request(out, resource, quantity);
    for (const auto& [name, value] : m.env)
      add_env(out, name, value);
    if (m.runtime_class)
      set_runtime_class(out, *m.runtime_class);
    return m.uses_device;
  }

  hami_device_request container_request(const hami_pod_view& pod, std::size_t idx) override {
    const Request r =
        translate({}, [&] { return ascend::container_request(config_, container_at(pod, idx)); });
    return device_request(r.count, r.memory_mib, r.memory_percent, r.cores);
  }

  void decode_node(const hami_node_view& node, const hami_device_sink& out) override {
    const KvList annotations(node.annotations, node.annotations_len);
    const auto reg = annotations.find(config_.register_annotation);
    if (!reg)
      throw Error(HAMI_NOT_FOUND, "annos not found " + config_.register_annotation);
    const RegisterDecoding decoded = translate({}, [&] { return decode_register_json(*reg); });
    if (decoded.devices().empty())
      throw Error(HAMI_INVALID_ARGUMENT, "no device found on node");
    const std::vector<std::string> attributes = device_attributes(decoded);
    const std::string_view mode = device_mode(config_, annotations);
    emit_devices(decoded, annotations.find(kCordonAnnotation), out,
                 [&](std::size_t i, hami_device& hd) {
                   hd.mode = to_str(mode);
                   hd.attributes = to_str(attributes[i]);
                 });
  }

  hami_health_result node_health(const hami_node_view& node, std::int64_t now_unix,
                                 const hami_annotation_sink& writes) override {
    return handshake_health(
        node, now_unix,
        {config_.handshake_annotation, config_.register_annotation, config_.count_resource},
        writes);
  }

  void node_cleanup(const hami_node_view& /*node*/, const hami_annotation_sink& writes) override {
    remove_annotation(writes, config_.handshake_annotation);
  }

  void fit(const hami_fit_input& in, hami_fit_output& out) override {
    run_fit(out, [&](std::span<hami_fit_pick> picks, std::string& reason) {
      return ascend_fit(fit_rules_, in, picks, reason);
    });
  }

  void annotate_allocation(const hami_pod_view& pod, std::string_view /*node_name*/,
                           std::span<const hami_placed_container> containers, std::int64_t now_unix,
                           const hami_annotation_sink& writes) override {
    const bool soft = soft_split(KvList(pod.annotations, pod.annotations_len));
    const auto value = translate({config_.runtime_info_annotation},
                                 [&] { return runtime_info(config_, containers, soft); });
    if (!value)
      return;  // no NPU of this chip: HAMi writes nothing
    set_annotation(writes, config_.runtime_info_annotation, *value);
    set_annotation(writes, kPredicateTimeAnnotation, std::to_string(now_unix));
  }

  void score_placement(const hami_placement_score_input& in, hami_placement_score& out) override {
    if (!config_.network_topology())
      return;
    out.score = translate({}, [&] { return placement_score(in); });
    out.policy_neutral = 0;
  }

 private:
  Host host_;
  AscendConfig config_;
  std::array<hami_str, 2> allocation_annotations_;  // views into config_
  AscendFitRules fit_rules_;                        // views into config_
};

}  // namespace
}  // namespace hami::devices::ascend

HAMI_EXPORT_DEVICE_PLUGIN(hami::devices::ascend::AscendPlugin, "ascend", "1.0.0",
                          "Ascend NPU sharing rules (one chip per instance), compatible with "
                          "HAMi v2.10",
                          hami::devices::ascend::kConfigSchema, HAMI_FLAG_CONCURRENT_SAFE)
