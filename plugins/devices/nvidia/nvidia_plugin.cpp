// nvidia.so: HAMi v2.10's NVIDIA vGPU rules behind the device plugin ABI.
// This file only binds the vendor logic (nvidia_*.cpp) to hami::DevicePlugin.
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "binding.hpp"
#include "hami/device.hpp"
#include "mig_allocations.hpp"
#include "mig_attributes.hpp"
#include "mig_partitions.hpp"
#include "mig_pod_allocation.hpp"
#include "nvidia_admission.hpp"
#include "nvidia_config.hpp"
#include "nvidia_fit.hpp"
#include "nvidia_health.hpp"
#include "nvidia_names.hpp"
#include "nvidia_requests.hpp"
#include "standard_plugin.hpp"

namespace hami::devices::nvidia {
namespace {

class NvidiaPlugin final : public StandardCodecPlugin {
 public:
  NvidiaPlugin(const hami_host_info& host, std::string_view config_json)
      : host_(host),
        config_(translate({"nvidia config"}, [&] { return parse_config(config_json); })) {}

  void describe(hami_device_description& out) override {
    out.vendor = to_str(kVendor);
    out.count_resource = to_str(config_.count_resource);
    out.memory_resource = to_str(config_.memory_resource);
    out.memory_percent_resource = to_str(config_.memory_percent_resource);
    out.cores_resource = to_str(config_.cores_resource);
    out.priority_resource = to_str(config_.priority_resource);
    out.register_annotation = to_str(kRegisterAnnotation);
    out.handshake_annotation = to_str(kHandshakeAnnotation);
    out.to_allocate_annotation = to_str(kToAllocateAnnotation);
    out.allocated_annotation = to_str(kAllocatedAnnotation);
    out.memory_factor = config_.memory_factor;
    out.cores_unit = HAMI_CORES_PERCENT;
    out.vendor_flags = HAMI_VENDOR_MULTI_PICK;  // MIG: several instances of one GPU
    out.allocation_annotations = kAllocationAnnotations.data();
    out.allocation_annotations_len = kAllocationAnnotations.size();
    out.partition_metrics = kMigPartitionFamilies.data();
    out.partition_metrics_len = kMigPartitionFamilies.size();
  }

  bool mutate_container(const hami_pod_view& pod, std::size_t idx,
                        const hami_container_mutation_sink& out) override {
    const ContainerMutation m = translate({}, [&] {
      return nvidia::mutate_container(config_, container_at(pod, idx),
                                      to_sv(pod.runtime_class_name));
    });
    replay(m, out);
    return m.uses_device;
  }

  hami_device_request container_request(const hami_pod_view& pod, std::size_t idx) override {
    const Request r =
        translate({}, [&] { return nvidia::container_request(config_, container_at(pod, idx)); });
    return device_request(r.count, r.memory_mib, r.memory_percent, r.cores);
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
                  [&] { return decode_register(*reg, RegisterForm::Legacy); });
    std::vector<PairScore> scores;
    if (const auto text = annotations.find(kPairScoreAnnotation)) {
      scores = translate({"node ", node_name, ": ", kPairScoreAnnotation},
                         [&] { return decode_pair_scores(*text); });
    }
    // MIG-mode devices carry their profiles to fit as attributes.
    std::vector<std::string> attributes;
    for (std::size_t i = 0; i < decoded.devices().size(); ++i) {
      const RegisteredDevice& d = decoded.devices()[i];
      if (d.mode != kModeMig)
        continue;
      attributes.resize(decoded.devices().size());
      attributes[i] = encode_mig_attributes(d.mig_profiles);
    }
    emit_inventory(decoded, annotations.find(kCordonAnnotation), scores, out, attributes);
  }

  hami_health_result node_health(const hami_node_view& node, std::int64_t now_unix,
                                 const hami_annotation_sink& writes) override {
    const KvList annotations(node.annotations, node.annotations_len);
    const NodeFacts facts{
        to_sv(node.name), annotations.find(kHandshakeAnnotation),
        annotations.find(kRegisterAnnotation),
        resource_count(KvList(node.allocatable, node.allocatable_len), config_.count_resource)};
    const HandshakeResult r = health_.check(facts, now_unix);
    if (r.stamp)
      set_annotation(writes, kHandshakeAnnotation, *r.stamp);
    hami_health_result out{};
    out.struct_size = static_cast<std::uint32_t>(sizeof out);
    out.healthy = r.healthy ? 1u : 0u;
    out.needs_update = r.needs_update ? 1u : 0u;
    return out;
  }

  void node_cleanup(const hami_node_view& node, const hami_annotation_sink& writes) override {
    health_.forget(to_sv(node.name));
    remove_annotation(writes, kHandshakeAnnotation);
  }

  void fit(const hami_fit_input& in, hami_fit_output& out) override {
    const bool records_data = out.set_pick_data != nullptr;
    std::vector<std::string> data;
    run_fit(out, [&](std::span<hami_fit_pick> picks, std::string& reason) {
      return nvidia::fit(in, picks, reason, records_data ? &data : nullptr);
    });
    if (out.fits == 0)
      return;
    for (std::size_t k = 0; k < out.picks_len && k < data.size(); ++k) {
      if (!data[k].empty())
        set_pick_data(out, k, data[k]);
    }
  }

  void annotate_allocation(const hami_pod_view& pod, std::string_view /*node_name*/,
                           std::span<const hami_placed_container> containers,
                           std::int64_t /*now_unix*/, const hami_annotation_sink& writes) override {
    const auto value =
        translate({kMigAllocationsAnnotation}, [&] { return mig_annotation_for(containers); });
    if (value) {
      set_annotation(writes, kMigAllocationsAnnotation, *value);
    } else if (KvList(pod.annotations, pod.annotations_len).contains(kMigAllocationsAnnotation)) {
      remove_annotation(writes, kMigAllocationsAnnotation);
    }
  }

  void decode_pod_allocation(const hami_pod_view& pod, const hami_placed_sink& out) override {
    const KvList annotations(pod.annotations, pod.annotations_len);
    std::string_view key = kAllocatedAnnotation;
    auto value = annotations.find(key);
    if (!value) {
      key = kToAllocateAnnotation;
      value = annotations.find(key);
    }
    if (!value) {
      throw Error(HAMI_NOT_FOUND, "pod " + std::string(to_sv(pod.namespace_)) + "/" +
                                      std::string(to_sv(pod.name)) + " has no " +
                                      std::string(kAllocatedAnnotation) + " or " +
                                      std::string(kToAllocateAnnotation) + " annotation");
    }
    const PlacedAllocation placed = translate({key}, [&] {
      return decode_placed_allocation(*value, annotations.find(kMigAllocationsAnnotation));
    });
    for (const auto& container : placed) {
      open_container(out);
      for (const PlacedEntry& e : container) {
        hami_placed_device d{};
        d.id = to_str(e.device.id);
        d.type = to_str(e.device.type);
        d.memory_mib = e.device.memory_mib;
        d.cores = e.device.cores;
        d.data = to_str(e.data);
        emit_placed_device(out, d);
      }
    }
  }

  void describe_partitions(const hami_pod_view& pod, const hami_partition_sink& out) override {
    const auto value = KvList(pod.annotations, pod.annotations_len).find(kMigAllocationsAnnotation);
    if (!value)
      return;
    translate({kMigAllocationsAnnotation}, [&] { emit_mig_partitions(*value, out); });
  }

 private:
  static constexpr std::array<hami_str, 1> kAllocationAnnotations{
      hami_str{kMigAllocationsAnnotation.data(), kMigAllocationsAnnotation.size()}};

  Host host_;
  NvidiaConfig config_;
  HealthTracker health_;
};

}  // namespace
}  // namespace hami::devices::nvidia

HAMI_EXPORT_DEVICE_PLUGIN(hami::devices::nvidia::NvidiaPlugin, "nvidia", "1.0.0",
                          "NVIDIA vGPU sharing rules, compatible with HAMi v2.10",
                          hami::devices::nvidia::kConfigSchema, HAMI_FLAG_CONCURRENT_SAFE)
