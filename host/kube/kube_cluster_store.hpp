// KubeClusterStore: the in-memory side of KubernetesClusterState — the
// nodes, pods, quotas and namespaces the caches and write replies bring in,
// and the ClusterWatcher feed.
//
// Every change is applied under the store's lock and delivered to the
// watchers after that lock is released, in the order the changes were
// made (a second lock, held across apply + delivery, serialises the
// writers: reflector threads and write replies).
//
// Staleness rule: an object whose resourceVersion is not newer than the
// stored one (integers compared as integers) is ignored, so a watch event
// that lags behind a write reply already stored cannot roll the cache back.
// The same holds for a deletion: a DELETED event older than what is stored
// (the object was re-created meanwhile) is ignored. Revisions are the
// store-wide etcd ones, so the rule holds across pods of one name.
//
// Uid rule: pods are stored by namespace/name, but a name may come to hold
// a new pod whose deletion of the old one was never seen (a relist after a
// dropped watch or 410, an ADDED/MODIFIED event or a write reply carrying
// another uid). Watchers then get pod_deleted(<old record>) before
// pod_upserted(<new record>). A DELETED event removes only the uid it
// names. A relist deletion says no pod of that name existed at the list's
// revision: it removes the stored pod whatever its uid, unless that is
// newer than the list (a write reply stored a pod created after it).
//
// Binding rule: spec.nodeName is immutable once set, so an update of the
// same pod (same uid) without it — older than a binding stored at once by
// mark_bound — keeps the stored node name instead of unbinding the pod. A
// pod of a new uid reads with its own spec.nodeName (a re-created pod is
// pending until it is bound itself).
//
// Objects are trimmed (kube/object_trim.hpp) before anything is kept. A
// pod or node the models reject is logged and left out.
#pragma once

#include <rapidjson/document.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cluster/cluster_state.hpp"
#include "kube/reflector.hpp"

namespace hami::log {
class Logger;
}

namespace hami::kube {

class KubeClusterStore {
 public:
  explicit KubeClusterStore(const log::Logger* logger);

  // --- reads (ClusterState) ---
  std::shared_ptr<const k8s::NodeModel> node(std::string_view name) const;
  std::vector<std::shared_ptr<const k8s::NodeModel>> nodes() const;
  std::shared_ptr<const cluster::PodRecord> pod(std::string_view namespace_,
                                                std::string_view name) const;
  std::vector<std::shared_ptr<const cluster::PodRecord>> pods() const;
  std::vector<cluster::ResourceQuotaRecord> quotas() const;
  std::vector<cluster::NamespaceRecord> namespaces() const;
  void watch(cluster::ClusterWatcher& watcher);
  void unwatch(cluster::ClusterWatcher& watcher);

  // --- changes ---
  // A relist: upserts what changed, removes the keys listed as deleted
  // (unless what is stored is newer than the list).
  void replace_pods(const Relist& relist);
  void replace_nodes(const Relist& relist);
  void replace_quotas(const Relist& relist);
  void replace_namespaces(const Relist& relist);

  // One object (full or trimmed), subject to the staleness rule.
  void upsert_pod(const rapidjson::Value& pod, bool force);
  void upsert_node(const rapidjson::Value& node);
  void upsert_quota(const rapidjson::Value& quota);
  void upsert_namespace(const rapidjson::Value& namespace_object);
  void delete_pod(const rapidjson::Value& last_state);
  void delete_node(const rapidjson::Value& last_state);
  void delete_node_named(std::string_view name);
  void delete_quota(const rapidjson::Value& last_state);
  void delete_namespace(const rapidjson::Value& last_state);

  // After a successful Binding: the cached pod gets spec.nodeName = node at
  // once (its resourceVersion is left as it was, so the watch event of the
  // binding, which is newer, still replaces it). No-op for an unknown pod,
  // one already bound, or — with `uid` set — a pod of another uid (the
  // name was re-created since the Binding of `uid` was sent).
  void mark_bound(std::string_view namespace_, std::string_view name, std::string_view node,
                  std::string_view uid = {});

  // Bytes of pod JSON text held: pending pods' only.
  std::size_t pod_text_bytes() const;

 private:
  using Key = std::pair<std::string, std::string>;  // namespace, name
  struct StoredPod {
    std::shared_ptr<const cluster::PodRecord> record;
    // The trimmed object, compact, while the pod is pending (mark_bound
    // rebuilds it); empty once it is bound.
    std::string json;
  };
  struct StoredQuota {
    cluster::ResourceQuotaRecord record;
    std::string resource_version;
  };
  struct StoredNamespace {
    cluster::NamespaceRecord record;
    std::string resource_version;
  };
  struct Notes;

  bool apply_pod(const rapidjson::Value& pod, bool force, Notes& notes);
  bool apply_node(const rapidjson::Value& node, Notes& notes);
  bool apply_quota(const rapidjson::Value& quota, Notes& notes);
  bool apply_namespace(const rapidjson::Value& namespace_object, Notes& notes);
  void deliver(const Notes& notes);
  void rejected(std::string_view kind, const rapidjson::Value& object, const char* why) const;

  const log::Logger* logger_;
  std::mutex order_mu_;    // held across apply + delivery: watchers see change order
  mutable std::mutex mu_;  // guards everything below
  std::map<std::string, std::shared_ptr<const k8s::NodeModel>, std::less<>> nodes_;
  std::map<Key, StoredPod> pods_;
  std::map<Key, StoredQuota> quotas_;
  std::map<std::string, StoredNamespace, std::less<>> namespaces_;
  std::vector<cluster::ClusterWatcher*> watchers_;
};

}  // namespace hami::kube
