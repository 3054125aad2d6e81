// KubernetesClusterState: the `kubernetes` backend of ClusterState. Keeps
// list+watch caches of pods (all namespaces), nodes, resourcequotas and
// namespaces, trimmed to the fields the host uses, and sends writes to the
// API server:
//   - pod metadata: JSON merge patch, or a JSON Patch led by `test`
//     operations when the write has preconditions (the uid, a
//     resourceVersion, annotation values): the server checks them, and a
//     failed one (422) is ClusterError Conflict, nothing written;
//   - node annotations: merge patch carrying metadata.resourceVersion as a
//     precondition when one is expected (409 → the node is re-read into the
//     cache, then ClusterError Conflict, so the node lock retries on fresh
//     data);
//   - bind: POST pods/{name}/binding with the uid precondition; 409
//     "already assigned" to the same node counts as success, to another
//     node is Conflict;
//   - events: events.k8s.io/v1 (or core v1 when configured), best effort,
//     aggregated and rate-limited as client-go's recorders do
//     (kube/event_recorder.hpp), written from a background thread through
//     a bounded queue so filter and bind never wait on them.
// Every successful write is applied to the cache from the server's reply
// before the call returns, so reads and watchers see it at once (the
// ClusterState contract).
//
// Each cache (a kube::Reflector) lists (first at resourceVersion=0, from the
// API server's watch cache), then watches from the list's resourceVersion
// with bookmarks; 410 Expired (HTTP or ERROR event) → relist at the last
// resourceVersion seen; another ERROR event or a dropped stream → re-watch
// from the last resourceVersion after backoff; no periodic relist. A relist delivers the
// differences to watchers (deletions included). Objects are trimmed before they are kept
// (kube/object_trim.hpp: container env is not kept); an event not newer
// than what a write reply already stored is ignored, and a bound pod never
// reads as unbound again (kube/kube_cluster_store.hpp).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "cluster/cluster_state.hpp"
#include "kube/api_client.hpp"

namespace hami::kube {

struct KubeClusterOptions {
  std::string component = "hami-scheduler";  // event reportingController / source.component
  std::string instance;                      // reportingInstance (host name); empty: hostname
  bool core_v1_events = false;               // true: /api/v1 Events instead of events.k8s.io/v1
  int list_page_size = 500;
  // Server-side timeoutSeconds of each watch: random in [min, 2*min).
  std::chrono::seconds watch_timeout{300};
  std::chrono::milliseconds backoff_initial{200};
  std::chrono::milliseconds backoff_max{std::chrono::seconds(30)};
  // Events waiting to be posted (by a background thread); more are dropped.
  size_t event_queue_capacity = 1000;
  // The client Events are written with: its own rate limit, so Events never
  // queue the writes of a bind (kube-scheduler gives its event broadcaster a
  // client of its own the same way). Empty: the cluster's client.
  std::shared_ptr<ApiClient> event_client;
  // The time of Events: their timestamps, series and rate limits. Empty:
  // the system clock.
  std::function<std::chrono::system_clock::time_point()> event_clock;
  const log::Logger* logger = nullptr;  // must outlive the cluster state
  // Told (from a watch thread) each time a cache re-watches after a failure
  // (relist false) or relists after 410 Expired (relist true); `resource` is
  // "pods", "nodes", "resourcequotas" or "namespaces". May be empty.
  std::function<void(std::string_view resource, bool relist)> watch_restarted;
};

class KubernetesClusterState final : public cluster::ClusterState {
 public:
  KubernetesClusterState(std::shared_ptr<ApiClient> client, KubeClusterOptions options);
  ~KubernetesClusterState() override;  // stops and joins the watch threads

  // Starts the list+watch threads; returns at once (the API server may be
  // unreachable: the caches keep retrying with backoff).
  void start();
  void stop();

  // Every cache has completed its first full list. Once true it stays true:
  // later relists and API-server outages keep the last known state (the
  // caches keep retrying with backoff, and writes fail Unavailable while
  // the server cannot be reached), so readiness does not flap with the
  // watch connections.
  bool synced() const;
  // Blocks up to `timeout` for synced(); returns synced().
  bool wait_synced(std::chrono::milliseconds timeout) const;
  // Empty when synced; else why not, one entry per cache not yet listed,
  // joined with "; ", e.g. "nodes: list failed (attempt 3): connection
  // refused" or "pods: waiting for the first list" ("not started" before
  // start()).
  std::string sync_status() const;
  // Called (from a watch thread, no lock held) whenever synced() or
  // sync_status() changes.
  void on_sync_change(std::function<void(bool synced, const std::string& detail)> listener);

  // ClusterState (see cluster_state.hpp)
  std::shared_ptr<const k8s::NodeModel> node(std::string_view name) const override;
  std::vector<std::shared_ptr<const k8s::NodeModel>> nodes() const override;
  std::shared_ptr<const cluster::PodRecord> pod(std::string_view namespace_,
                                                std::string_view name) const override;
  std::vector<std::shared_ptr<const cluster::PodRecord>> pods() const override;
  // The cache, then a live GET when the cache has no such pod (404: gone;
  // any other failure: assumed to exist).
  bool pod_exists(std::string_view namespace_, std::string_view name) const override;
  // GETs from the API server and refreshes the cache with what it reads.
  std::shared_ptr<const cluster::PodRecord> pod_live(std::string_view namespace_,
                                                     std::string_view name) override;
  std::shared_ptr<const k8s::NodeModel> node_live(std::string_view name) override;
  std::vector<cluster::ResourceQuotaRecord> quotas() const override;
  std::vector<cluster::NamespaceRecord> namespaces() const override;
  void watch(cluster::ClusterWatcher& watcher) override;
  void unwatch(cluster::ClusterWatcher& watcher) override;
  void patch_pod_metadata(std::string_view namespace_, std::string_view name,
                          const cluster::PodMetadataPatch& patch,
                          std::optional<std::string_view> expected_uid) override;
  void patch_node_annotations(std::string_view node,
                              const std::vector<cluster::MetadataWrite>& annotations,
                              std::optional<std::string_view> expected_resource_version) override;
  void bind(std::string_view namespace_, std::string_view name, std::string_view uid,
            std::string_view node) override;
  // Queues the event (see the top of this file); never blocks on the API.
  void record_event(const cluster::Event& event) override;

  // Waits up to `timeout` until every queued event has been posted (or
  // failed); returns whether the queue drained.
  bool flush_events(std::chrono::milliseconds timeout);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hami::kube
