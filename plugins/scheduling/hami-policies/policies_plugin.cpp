// hami-policies: HAMi's node policies (binpack, spread) and device policies
// (binpack, spread, numa, mutex, topology-aware and their comma chains) as a
// scheduling plugin.
//
// Config (all optional):
//   numaBindAnnotation: pod annotation that asks for all of a container's
//                       devices on one NUMA node (default nvidia.com/numa-bind,
//                       true when it parses as a Go bool true).
#include <rapidjson/document.h>

#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "device_order.hpp"
#include "hami/scheduling.hpp"

namespace {

constexpr const char* kSchema = R"({
  "type": "object",
  "properties": {
    "numaBindAnnotation": {"type": "string", "minLength": 1}
  },
  "additionalProperties": false
})";

bool go_parse_bool_true(std::string_view v) {
  return v == "1" || v == "t" || v == "T" || v == "TRUE" || v == "true" || v == "True";
}

class Policies final : public hami::SchedulingPolicy {
 public:
  Policies(const hami_host_info& /*host*/, std::string_view config_json) {
    rapidjson::Document doc;
    doc.Parse(config_json.data(), config_json.size());
    if (doc.HasParseError() || !doc.IsObject()) {
      throw hami::Error(HAMI_INVALID_ARGUMENT, "config must be a JSON object");
    }
    if (const auto it = doc.FindMember("numaBindAnnotation"); it != doc.MemberEnd()) {
      if (!it->value.IsString() || it->value.GetStringLength() == 0) {
        throw hami::Error(HAMI_INVALID_ARGUMENT, "numaBindAnnotation must be a non-empty string");
      }
      numa_bind_annotation_.assign(it->value.GetString(), it->value.GetStringLength());
    }
  }

  void describe(hami_policy_description& out) override {
    // The first of each list is the default (HAMi's --node-scheduler-policy
    // binpack and --gpu-scheduler-policy spread).
    out.node_policies = hami::to_str("binpack,spread");
    out.device_policies = hami::to_str("spread,binpack,numa,mutex,topology-aware");
  }

  double score_node(std::string_view policy, const hami_pod_view& /*pod*/,
                    const hami_node_usage& node) override {
    const double score =
        hami::policies::node_score(policy, node.used, node.count, node.used_cores, node.total_cores,
                                   node.used_memory_mib, node.total_memory_mib);
    if (score < 0) {
      throw hami::Error(HAMI_INVALID_ARGUMENT,
                        "unknown node policy \"" + std::string(policy) + "\"");
    }
    // The wrapper hands over a full-size copy: members an older host does
    // not send read as 0.
    return hami::policies::node_score_with_vendor_terms(policy, score, node.vendor_score,
                                                        node.vendor_neutral_score);
  }

  void order_devices(const hami_order_input& in, hami_order_output& out) override {
    const std::string_view policy = hami::to_sv(in.policy);
    if (!hami::policies::known_device_policy(policy)) {
      throw hami::Error(HAMI_INVALID_ARGUMENT,
                        "unknown device policy \"" + std::string(policy) + "\"");
    }
    // Nodes carry a handful of devices: keep their facts on the stack.
    constexpr size_t kInline = 32;
    std::array<hami::policies::DeviceFacts, kInline> inline_facts;
    std::vector<hami::policies::DeviceFacts> heap_facts;
    std::span<hami::policies::DeviceFacts> facts(inline_facts.data(), in.devices_len);
    if (in.devices_len > kInline) {
      heap_facts.resize(in.devices_len);
      facts = heap_facts;
    }
    for (size_t i = 0; i < in.devices_len; ++i) {
      const hami_order_device& d = in.devices[i];
      if (d.usage == nullptr || d.usage->device == nullptr) {
        throw hami::Error(HAMI_INVALID_ARGUMENT, "device " + std::to_string(i) + " has no usage");
      }
      facts[i] = {d.score, d.usage->device->numa, d.usage->device->index, d.usage->used};
    }
    hami::policies::try_order_into(policy, numa_bind(*in.pod), facts,
                                   std::span<size_t>(out.order, in.devices_len));
    out.fit_flags = hami::policies::fit_flags(policy);
  }

 private:
  bool numa_bind(const hami_pod_view& pod) const {
    for (size_t i = 0; i < pod.annotations_len; ++i) {
      if (hami::to_sv(pod.annotations[i].key) == numa_bind_annotation_) {
        return go_parse_bool_true(hami::to_sv(pod.annotations[i].value));
      }
    }
    return false;
  }

  std::string numa_bind_annotation_ = "nvidia.com/numa-bind";
};

}  // namespace

HAMI_EXPORT_SCHEDULING_PLUGIN(Policies, "hami-policies", "1.0.0",
                              "HAMi node policies (binpack, spread) and device policies "
                              "(binpack, spread, numa, mutex, topology-aware)",
                              kSchema, HAMI_FLAG_CONCURRENT_SAFE)
