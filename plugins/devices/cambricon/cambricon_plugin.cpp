// cambricon.so: HAMi v2.10's Cambricon MLU rules behind the device plugin
// ABI. This file binds the vendor logic (cambricon_*.cpp, common/) to
// hami::DevicePlugin.
#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "binding.hpp"
#include "cambricon_config.hpp"
#include "cambricon_names.hpp"
#include "cambricon_node.hpp"
#include "cambricon_profile.hpp"
#include "cambricon_requests.hpp"
#include "hami/device.hpp"
#include "standard_plugin.hpp"

namespace hami::devices::cambricon {
namespace {

// S-FIT with the UUID selectors and HAMi's Cambricon-only quota step before
// the memory check. There is no type selector (cambricon.com/use-mlutype is
// defined by HAMi but never read). Picks are typed with the vendor word.
constexpr ShareFitRules kFitRules{kVendor, {}, {}, kUseUuid, kNoUseUuid, true, true};

class CambriconPlugin final : public StandardCodecPlugin {
 public:
  CambriconPlugin(const hami_host_info& host, std::string_view config_json)
      : host_(host),
        config_(translate({"cambricon config"}, [&] { return parse_config(config_json); })) {}

  void describe(hami_device_description& out) override {
    out.vendor = to_str(kVendor);
    out.count_resource = to_str(config_.count_resource);
    out.memory_resource = to_str(config_.memory_resource);
    out.cores_resource = to_str(config_.cores_resource);
    // No registration or handshake annotation: the inventory is the node's
    // capacity, and HAMi's health is always (true, true).
    out.to_allocate_annotation = to_str(kToAllocateAnnotation);
    out.allocated_annotation = to_str(kAllocatedAnnotation);
    out.memory_factor = kMemoryFactor;
    out.cores_unit = HAMI_CORES_PERCENT;
    out.allocation_annotations = kAllocationAnnotations.data();
    out.allocation_annotations_len = kAllocationAnnotations.size();
    // HAMi's own Cambricon lock instead of hami.io/mutex.lock; the host
    // takes it at bind and only the bind that took it releases it (HAMi
    // X2 / §4.9a: HAMi lets any failed bind on the node delete it).
    out.node_lock = HAMI_NODE_LOCK_OWN;
    out.own_lock_annotation = to_str(kLockAnnotation);
    out.own_lock_expiry_seconds = kLockExpirySeconds;
  }

  bool mutate_container(const hami_pod_view& pod, std::size_t idx,
                        const hami_container_mutation_sink& /*out*/) override {
    return translate({}, [&] { return uses_mlu(config_, container_at(pod, idx)); });
  }

  hami_device_request container_request(const hami_pod_view& pod, std::size_t idx) override {
    const Request r = translate(
        {}, [&] { return cambricon::container_request(config_, container_at(pod, idx)); });
    return device_request(r.count, r.memory_mib, r.memory_percent, r.cores);
  }

  void decode_node(const hami_node_view& node, const hami_device_sink& out) override {
    const std::vector<Mlu> mlus = translate({}, [&] {
      return decode_capacity(config_, to_sv(node.name), KvList(node.capacity, node.capacity_len));
    });
    if (mlus.empty())
      throw Error(HAMI_NOT_FOUND, device_not_found(config_));
    for (const Mlu& m : mlus) {
      hami_device d{};
      d.struct_size = static_cast<std::uint32_t>(sizeof d);
      d.id = to_str(m.id);
      d.type = to_str(kVendor);
      d.index = m.index;
      d.count = 100;
      d.memory_mib = m.memory_mib;
      d.cores = 100;
      d.numa = 0;
      d.flags = HAMI_DEVICE_HEALTHY;
      emit_device(out, d);
    }
  }

  // HAMi CheckHealth: always (true, true); nothing to stamp, nothing to
  // clean up.
  hami_health_result node_health(const hami_node_view& /*node*/, std::int64_t /*now_unix*/,
                                 const hami_annotation_sink& /*writes*/) override {
    hami_health_result r{};
    r.struct_size = static_cast<std::uint32_t>(sizeof r);
    r.healthy = 1u;
    r.needs_update = 1u;
    return r;
  }

  void fit(const hami_fit_input& in, hami_fit_output& out) override {
    run_share_fit(kFitRules, in, out);
  }

  // HAMi PatchAnnotations' two further keys, written only when the pod has
  // MLUs on the node.
  void annotate_allocation(const hami_pod_view& /*pod*/, std::string_view /*node_name*/,
                           std::span<const hami_placed_container> containers,
                           std::int64_t /*now_unix*/, const hami_annotation_sink& writes) override {
    const std::optional<std::string> profile = dsmlu_profile(containers);
    if (!profile)
      return;
    set_annotation(writes, kAssignedAnnotation, "false");
    set_annotation(writes, kProfileAnnotation, *profile);
  }

 private:
  static constexpr std::array<hami_str, 2> kAllocationAnnotations{
      hami_str{kAssignedAnnotation.data(), kAssignedAnnotation.size()},
      hami_str{kProfileAnnotation.data(), kProfileAnnotation.size()}};

  Host host_;
  CambriconConfig config_;
};

}  // namespace
}  // namespace hami::devices::cambricon

HAMI_EXPORT_DEVICE_PLUGIN(hami::devices::cambricon::CambriconPlugin, "cambricon", "1.0.0",
                          "Cambricon MLU sharing rules, compatible with HAMi v2.10",
                          hami::devices::cambricon::kConfigSchema, HAMI_FLAG_CONCURRENT_SAFE)
