// KubeClusterStore: the in-memory side of KubernetesClusterState — the
// nodes, pods, quotas and namespaces the caches and write replies bring in,
// and the ClusterWatcher feed.
//
// Each kind is an ObjectTable (kube/object_table.hpp: the staleness rule
// and trimming every kind follows), with the rules of its own declared by
// the kind: pod_kind.hpp (the uid and binding rules), node_kind.hpp,
// quota_kind.hpp, namespace_kind.hpp.
//
// Every change runs on the cluster::ChangeFeed: applied under the table's
// lock and delivered to the watchers after that lock is released, in the
// order the changes were made (the feed's lock, held across apply +
// delivery, serialises the writers: reflector threads and write replies).
#pragma once

#include <rapidjson/document.h>

#include <memory>
#include <string_view>
#include <vector>

#include "cluster/change_feed.hpp"
#include "cluster/cluster_state.hpp"
#include "kube/namespace_kind.hpp"
#include "kube/node_kind.hpp"
#include "kube/object_table.hpp"
#include "kube/pod_kind.hpp"
#include "kube/quota_kind.hpp"
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

  // One object (full or trimmed), subject to the staleness rule (unless
  // `force`).
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
  cluster::ChangeFeed feed_;
  ObjectTable<NodeKind> nodes_;
  ObjectTable<PodKind> pods_;
  ObjectTable<QuotaKind> quotas_;
  ObjectTable<NamespaceKind> namespaces_;
};

}  // namespace hami::kube
