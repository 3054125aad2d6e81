#include "cluster/change_feed.hpp"

#include <algorithm>

namespace hami::cluster {

void WatcherNotes::add(std::function<void(ClusterWatcher&)> call) {
  calls_.push_back(std::move(call));
  ends_with_quotas_ = false;
}

void WatcherNotes::node_upserted(std::shared_ptr<const k8s::NodeModel> node) {
  add([node = std::move(node)](ClusterWatcher& w) { w.node_upserted(node); });
}

void WatcherNotes::node_deleted(std::string name) {
  add([name = std::move(name)](ClusterWatcher& w) { w.node_deleted(name); });
}

void WatcherNotes::pod_upserted(std::shared_ptr<const PodRecord> pod) {
  add([pod = std::move(pod)](ClusterWatcher& w) { w.pod_upserted(pod); });
}

void WatcherNotes::pod_deleted(std::shared_ptr<const PodRecord> pod) {
  add([pod = std::move(pod)](ClusterWatcher& w) { w.pod_deleted(pod); });
}

void WatcherNotes::pod_stored(const std::shared_ptr<const PodRecord>& before,
                              std::shared_ptr<const PodRecord> now) {
  if (before && before->uid != now->uid)
    pod_deleted(before);
  pod_upserted(std::move(now));
}

void WatcherNotes::quotas_changed() {
  if (ends_with_quotas_)
    return;
  add([](ClusterWatcher& w) { w.quotas_changed(); });
  ends_with_quotas_ = true;
}

void WatcherNotes::deliver(const std::vector<ClusterWatcher*>& watchers) const {
  for (ClusterWatcher* w : watchers) {
    for (const auto& call : calls_)
      call(*w);
  }
}

void ChangeFeed::unwatch(ClusterWatcher& watcher) {
  std::lock_guard guard(mu_);
  watchers_.erase(std::remove(watchers_.begin(), watchers_.end(), &watcher), watchers_.end());
}

}  // namespace hami::cluster
