// A complete scheduling plugin: prefers emptier nodes ("emptiest") and tries
// devices with the least memory in use first.
#include <algorithm>
#include <numeric>
#include <string_view>

#include "hami/scheduling.hpp"

namespace {

class EmptiestFirst final : public hami::SchedulingPolicy {
 public:
  EmptiestFirst(const hami_host_info& host, std::string_view config) : host_(host) {
    if (config.find('{') == std::string_view::npos) {
      throw hami::Error(HAMI_INVALID_ARGUMENT, "config must be a JSON object");
    }
  }

  void describe(hami_policy_description& out) override {
    out.node_policies = hami::to_str("emptiest");
    out.device_policies = hami::to_str("emptiest");
  }

  double score_node(std::string_view, const hami_pod_view&, const hami_node_usage& node) override {
    if (node.total_memory_mib <= 0) {
      return 0.0;
    }
    const double used =
        static_cast<double>(node.used_memory_mib) / static_cast<double>(node.total_memory_mib);
    return 100.0 * (1.0 - std::clamp(used, 0.0, 1.0));
  }

  void order_devices(const hami_order_input& in, hami_order_output& out) override {
    std::iota(out.order, out.order + in.devices_len, std::size_t{0});
    std::stable_sort(out.order, out.order + in.devices_len, [&](std::size_t a, std::size_t b) {
      return in.devices[a].usage->used_memory_mib < in.devices[b].usage->used_memory_mib;
    });
    out.fit_flags = 0;
  }

 private:
  hami::Host host_;
};

}  // namespace

HAMI_EXPORT_SCHEDULING_PLUGIN(EmptiestFirst, "example-policy", "1.0.0",
                              "prefers the emptiest nodes and devices", nullptr,
                              HAMI_FLAG_CONCURRENT_SAFE)
