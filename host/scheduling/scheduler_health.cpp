// The registration/health pass over every node (HAMi's 15 s loop).
#include <utility>
#include <vector>

#include "log/logger.hpp"
#include "scheduling/scheduler.hpp"
#include "scheduling/scheduler_internal.hpp"

namespace hami::scheduling {

void Scheduler::check_node_health() {
  auto nodes = cluster_.nodes();
  for (auto& slot : nodes) {
    // Each model is let go once its node is checked: a patch replaces it,
    // and holding every old one until the end of the round kept two models
    // of each node alive at once.
    const std::shared_ptr<const k8s::NodeModel> node = std::move(slot);
    std::shared_ptr<const NodeDevices> devices;
    std::vector<bool> tracked;
    {
      const auto snapshot = ledger_.read();
      if (const NodeEntry* entry = snapshot->node(node->name())) {
        devices = entry->devices;
        tracked = entry->tracked;
      }
    }
    // Only vendors registered on the node are checked: HAMi stamped the
    // handshake on every node, GPU or not (bug 7.7#10).
    if (!devices)
      continue;
    for (uint32_t v = 0; v < devices_.size(); ++v) {
      if (v >= devices->vendors().size() || !devices->vendors()[v].registered)
        continue;
      try {
        const host::HealthResult health = devices_[v].node_health(node->view(), now());
        std::vector<cluster::MetadataWrite> writes;
        for (const auto& w : health.writes)
          writes.push_back({w.key, w.value});
        // HAMi cleans up only a vendor in its device cache: one never found
        // healthy keeps its handshake, so an expired `Requesting_` stamp is
        // not replaced by a fresh one that would make the node healthy.
        const bool was_tracked = v < tracked.size() && tracked[v];
        if (!health.healthy && was_tracked) {
          for (const auto& w : devices_[v].node_cleanup(node->view())) {
            writes.push_back({w.key, w.value});
          }
        }
        {
          auto txn = ledger_.write();
          txn->set_health(node->name(), v, health.healthy);
        }
        if (!writes.empty()) {
          cluster_.patch_node_annotations(node->name(), writes, std::nullopt);
        }
      } catch (const std::exception& e) {
        if (options_.logger) {
          options_.logger->warn("node health check failed", {{"node", std::string(node->name())},
                                                             {"plugin", devices_[v].name()},
                                                             {"error", e.what()}});
        }
      }
    }
  }
}

}  // namespace hami::scheduling
