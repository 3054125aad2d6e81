#include "kube/kube_cluster_store.hpp"

#include <string>

namespace hami::kube {

using cluster::WatcherNotes;
using rapidjson::Value;

KubeClusterStore::KubeClusterStore(const log::Logger* logger)
    : nodes_(logger), pods_(logger), quotas_(logger), namespaces_(logger) {}

// --- reads -------------------------------------------------------------------

std::shared_ptr<const k8s::NodeModel> KubeClusterStore::node(std::string_view name) const {
  return nodes_.find(name);
}

std::vector<std::shared_ptr<const k8s::NodeModel>> KubeClusterStore::nodes() const {
  return nodes_.records();
}

std::shared_ptr<const cluster::PodRecord> KubeClusterStore::pod(std::string_view namespace_,
                                                                std::string_view name) const {
  return pods_.find(PodKind::Key{namespace_, name});
}

std::vector<std::shared_ptr<const cluster::PodRecord>> KubeClusterStore::pods() const {
  return pods_.records();
}

std::vector<cluster::ResourceQuotaRecord> KubeClusterStore::quotas() const {
  return quotas_.records();
}

std::vector<cluster::NamespaceRecord> KubeClusterStore::namespaces() const {
  return namespaces_.records();
}

std::size_t KubeClusterStore::pod_text_bytes() const {
  std::size_t bytes = 0;
  pods_.for_each([&](const PodKind::Stored& pod) { bytes += pod.json.size(); });
  return bytes;
}

// --- the watcher feed --------------------------------------------------------

void KubeClusterStore::watch(cluster::ClusterWatcher& watcher) {
  feed_.watch(watcher, [&](WatcherNotes& notes) {
    nodes_.for_each([&](const NodeKind::Stored& node) { notes.node_upserted(node); });
    pods_.for_each([&](const PodKind::Stored& pod) { notes.pod_upserted(pod.record); });
    notes.quotas_changed();
  });
}

void KubeClusterStore::unwatch(cluster::ClusterWatcher& watcher) {
  feed_.unwatch(watcher);
}

// --- changes -----------------------------------------------------------------

void KubeClusterStore::replace_pods(const Relist& relist) {
  feed_.change([&](WatcherNotes& notes) { pods_.replace(relist, notes); });
}

void KubeClusterStore::replace_nodes(const Relist& relist) {
  feed_.change([&](WatcherNotes& notes) { nodes_.replace(relist, notes); });
}

void KubeClusterStore::replace_quotas(const Relist& relist) {
  feed_.change([&](WatcherNotes& notes) { quotas_.replace(relist, notes); });
}

void KubeClusterStore::replace_namespaces(const Relist& relist) {
  feed_.change([&](WatcherNotes& notes) { namespaces_.replace(relist, notes); });
}

void KubeClusterStore::upsert_pod(const Value& pod, bool force) {
  feed_.change([&](WatcherNotes& notes) { pods_.upsert(pod, force, notes); });
}

void KubeClusterStore::upsert_node(const Value& node) {
  feed_.change([&](WatcherNotes& notes) { nodes_.upsert(node, false, notes); });
}

void KubeClusterStore::upsert_quota(const Value& quota) {
  feed_.change([&](WatcherNotes& notes) { quotas_.upsert(quota, false, notes); });
}

void KubeClusterStore::upsert_namespace(const Value& namespace_object) {
  feed_.change([&](WatcherNotes& notes) { namespaces_.upsert(namespace_object, false, notes); });
}

void KubeClusterStore::delete_pod(const Value& last_state) {
  feed_.change([&](WatcherNotes& notes) { pods_.remove(last_state, notes); });
}

void KubeClusterStore::delete_node(const Value& last_state) {
  feed_.change([&](WatcherNotes& notes) { nodes_.remove(last_state, notes); });
}

void KubeClusterStore::delete_node_named(std::string_view name) {
  feed_.change([&](WatcherNotes& notes) { nodes_.erase(NodeKind::key(name), notes); });
}

void KubeClusterStore::delete_quota(const Value& last_state) {
  feed_.change([&](WatcherNotes& notes) { quotas_.remove(last_state, notes); });
}

void KubeClusterStore::delete_namespace(const Value& last_state) {
  feed_.change([&](WatcherNotes& notes) { namespaces_.remove(last_state, notes); });
}

void KubeClusterStore::mark_bound(std::string_view namespace_, std::string_view name,
                                  std::string_view node, std::string_view uid) {
  feed_.change([&](WatcherNotes& notes) {
    const std::string json =
        pods_.read(PodKind::Key{namespace_, name}, [&](const PodKind::Stored* pod) {
          return pod ? PodKind::text_to_bind(*pod, uid) : std::string();
        });
    rapidjson::Document doc;
    doc.Parse(json.data(), json.size());
    if (doc.HasParseError() || !doc.IsObject())
      return;
    PodKind::set_node_name(doc, node);
    // On the feed nothing else changed the pod since it was read.
    pods_.upsert(doc, true, notes);
  });
}

}  // namespace hami::kube
