// The ClusterWatcher feed both backends keep (see ClusterState, "Change
// feed"): WatcherNotes are the watcher calls one change owes, and a
// ChangeFeed registers watchers and delivers each change's notes.
//
// A change runs under the feed's lock and its notes are delivered before
// that lock is released, so watchers see changes in the order they were
// made. The backend's own lock (which guards its objects) is taken inside
// the change and released before delivery: a watcher may read the backend
// from its callback, but must not change it (nor watch or unwatch).
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "cluster/cluster_state.hpp"

namespace hami::cluster {

class WatcherNotes {
 public:
  void node_upserted(std::shared_ptr<const k8s::NodeModel> node);
  void node_deleted(std::string name);
  void pod_upserted(std::shared_ptr<const PodRecord> pod);
  void pod_deleted(std::shared_ptr<const PodRecord> pod);
  // `now` is stored under the namespace/name where `before` was (nullptr:
  // none was). A pod of another uid there means the old pod is gone, and
  // watchers keyed by uid must hear so first: pod_deleted(before), then
  // pod_upserted(now).
  void pod_stored(const std::shared_ptr<const PodRecord>& before,
                  std::shared_ptr<const PodRecord> now);
  // One quotas_changed stands for a run of quota changes.
  void quotas_changed();

  // Makes every call, in order, on each watcher in turn.
  void deliver(const std::vector<ClusterWatcher*>& watchers) const;

 private:
  void add(std::function<void(ClusterWatcher&)> call);

  std::vector<std::function<void(ClusterWatcher&)>> calls_;
  bool ends_with_quotas_ = false;
};

class ChangeFeed {
 public:
  // Runs change(notes) and delivers the notes to every watcher.
  template <typename Change>
  void change(Change&& change) {
    std::lock_guard guard(mu_);
    WatcherNotes notes;
    std::forward<Change>(change)(notes);
    notes.deliver(watchers_);
  }

  // Registers `watcher` and delivers to it alone what replay(notes) notes:
  // the backend's current contents, as upserts.
  template <typename Replay>
  void watch(ClusterWatcher& watcher, Replay&& replay) {
    std::lock_guard guard(mu_);
    watchers_.push_back(&watcher);
    WatcherNotes notes;
    std::forward<Replay>(replay)(notes);
    notes.deliver({&watcher});
  }

  void unwatch(ClusterWatcher& watcher);

 private:
  std::mutex mu_;  // held across a change and its delivery; guards watchers_
  std::vector<ClusterWatcher*> watchers_;
};

}  // namespace hami::cluster
