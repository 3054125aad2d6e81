#include "kube/kube_cluster_store.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>

#include "cluster/object_records.hpp"
#include "k8s/object_error.hpp"
#include "kube/object_trim.hpp"
#include "kube/watch_event.hpp"
#include "log/logger.hpp"

namespace hami::kube {

namespace {

using rapidjson::Value;

std::optional<uint64_t> decimal(std::string_view text) {
  if (text.empty())
    return std::nullopt;
  uint64_t v = 0;
  const auto res = std::from_chars(text.data(), text.data() + text.size(), v);
  if (res.ec != std::errc() || res.ptr != text.data() + text.size())
    return std::nullopt;
  return v;
}

// `stored` is known to be newer than `other` (both integer revisions). With
// opaque values nothing is known, so a deletion is applied.
bool provably_newer(std::string_view stored, std::string_view other) {
  const auto s = decimal(stored);
  const auto o = decimal(other);
  return s && o && *s > *o;
}

std::pair<std::string, std::string> split_key(std::string_view key) {
  const size_t slash = key.find('/');
  if (slash == std::string_view::npos)
    return {std::string(), std::string(key)};
  return {std::string(key.substr(0, slash)), std::string(key.substr(slash + 1))};
}

std::string compact(const Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return {buffer.GetString(), buffer.GetSize()};
}

// Sets spec.nodeName (creating spec when needed).
void set_node_name(rapidjson::Document& doc, std::string_view node) {
  auto& a = doc.GetAllocator();
  auto spec = doc.FindMember("spec");
  if (spec == doc.MemberEnd() || !spec->value.IsObject()) {
    doc.RemoveMember("spec");
    doc.AddMember("spec", Value(rapidjson::kObjectType), a);
    spec = doc.FindMember("spec");
  }
  spec->value.RemoveMember("nodeName");
  spec->value.AddMember("nodeName",
                        Value(node.data(), static_cast<rapidjson::SizeType>(node.size()), a), a);
}

template <typename Trim>
rapidjson::Document trimmed(const Value& object, Trim trim) {
  rapidjson::Document doc;
  Value copy = trim(object, doc.GetAllocator());
  static_cast<Value&>(doc).Swap(copy);
  return doc;
}

}  // namespace

struct KubeClusterStore::Notes {
  enum class Kind { NodeUpserted, NodeDeleted, PodUpserted, PodDeleted, QuotasChanged };
  struct Change {
    Kind kind;
    std::shared_ptr<const k8s::NodeModel> node;
    std::string node_name;
    std::shared_ptr<const cluster::PodRecord> pod;
  };
  std::vector<Change> changes;
  std::vector<cluster::ClusterWatcher*> watchers;
};

KubeClusterStore::KubeClusterStore(const log::Logger* logger) : logger_(logger) {}

// --- reads -------------------------------------------------------------------

std::shared_ptr<const k8s::NodeModel> KubeClusterStore::node(std::string_view name) const {
  std::lock_guard guard(mu_);
  const auto it = nodes_.find(name);
  return it == nodes_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<const k8s::NodeModel>> KubeClusterStore::nodes() const {
  std::lock_guard guard(mu_);
  std::vector<std::shared_ptr<const k8s::NodeModel>> out;
  out.reserve(nodes_.size());
  for (const auto& [_, n] : nodes_)
    out.push_back(n);
  return out;
}

std::shared_ptr<const cluster::PodRecord> KubeClusterStore::pod(std::string_view namespace_,
                                                                std::string_view name) const {
  std::lock_guard guard(mu_);
  const auto it = pods_.find(Key{std::string(namespace_), std::string(name)});
  return it == pods_.end() ? nullptr : it->second.record;
}

std::vector<std::shared_ptr<const cluster::PodRecord>> KubeClusterStore::pods() const {
  std::lock_guard guard(mu_);
  std::vector<std::shared_ptr<const cluster::PodRecord>> out;
  out.reserve(pods_.size());
  for (const auto& [_, p] : pods_)
    out.push_back(p.record);
  return out;
}

std::vector<cluster::ResourceQuotaRecord> KubeClusterStore::quotas() const {
  std::lock_guard guard(mu_);
  std::vector<cluster::ResourceQuotaRecord> out;
  out.reserve(quotas_.size());
  for (const auto& [_, q] : quotas_)
    out.push_back(q.record);
  return out;
}

std::vector<cluster::NamespaceRecord> KubeClusterStore::namespaces() const {
  std::lock_guard guard(mu_);
  std::vector<cluster::NamespaceRecord> out;
  out.reserve(namespaces_.size());
  for (const auto& [_, ns] : namespaces_)
    out.push_back(ns.record);
  return out;
}

void KubeClusterStore::watch(cluster::ClusterWatcher& watcher) {
  std::lock_guard order(order_mu_);
  Notes notes;
  {
    std::lock_guard guard(mu_);
    watchers_.push_back(&watcher);
    for (const auto& [_, n] : nodes_)
      notes.changes.push_back({Notes::Kind::NodeUpserted, n, {}, nullptr});
    for (const auto& [_, p] : pods_)
      notes.changes.push_back({Notes::Kind::PodUpserted, nullptr, {}, p.record});
    notes.changes.push_back({Notes::Kind::QuotasChanged, nullptr, {}, nullptr});
    notes.watchers = {&watcher};
  }
  deliver(notes);
}

void KubeClusterStore::unwatch(cluster::ClusterWatcher& watcher) {
  std::lock_guard order(order_mu_);
  std::lock_guard guard(mu_);
  watchers_.erase(std::remove(watchers_.begin(), watchers_.end(), &watcher), watchers_.end());
}

void KubeClusterStore::deliver(const Notes& notes) {
  if (notes.changes.empty())
    return;
  for (cluster::ClusterWatcher* w : notes.watchers) {
    for (const Notes::Change& c : notes.changes) {
      switch (c.kind) {
        case Notes::Kind::NodeUpserted:
          w->node_upserted(c.node);
          break;
        case Notes::Kind::NodeDeleted:
          w->node_deleted(c.node_name);
          break;
        case Notes::Kind::PodUpserted:
          w->pod_upserted(c.pod);
          break;
        case Notes::Kind::PodDeleted:
          w->pod_deleted(c.pod);
          break;
        case Notes::Kind::QuotasChanged:
          w->quotas_changed();
          break;
      }
    }
  }
}

void KubeClusterStore::rejected(std::string_view kind, const Value& object, const char* why) const {
  if (logger_) {
    logger_->warn("cluster object ignored",
                  {{"kind", std::string(kind)}, {"object", object_key(object)}, {"error", why}});
  }
}

// --- pods --------------------------------------------------------------------

bool KubeClusterStore::apply_pod(const Value& pod, bool force, Notes& notes) {
  if (!force) {
    // Most objects of a relist are unchanged: skip them before building.
    const auto [ns, name] = split_key(object_key(pod));
    const std::string rv = resource_version_of(pod);
    std::lock_guard guard(mu_);
    const auto it = pods_.find(Key{ns, name});
    if (it != pods_.end() && !resource_version_newer(rv, it->second.record->resource_version))
      return false;
  }
  rapidjson::Document doc = trimmed(pod, trim_pod);
  std::shared_ptr<const cluster::PodRecord> record;
  try {
    record = cluster::make_pod_record(doc);
    if (record->name.empty())
      return false;
    // spec.nodeName never changes once set, so an update without it is
    // older than the binding stored (mark_bound) and must not unbind.
    std::string bound_to;
    if (record->node_name.empty()) {
      std::lock_guard guard(mu_);
      const auto it = pods_.find(Key{record->namespace_, record->name});
      if (it != pods_.end() && it->second.record->uid == record->uid)
        bound_to = it->second.record->node_name;
    }
    if (!bound_to.empty()) {
      set_node_name(doc, bound_to);
      record = cluster::make_pod_record(doc);
    }
  } catch (const k8s::ObjectError& e) {
    rejected("Pod", pod, e.what());
    return false;
  }
  // Only a pending pod's text is kept: mark_bound rebuilds the pod from it,
  // and a bound pod is never bound again. With thousands of running pods
  // these texts were most of what the store held.
  std::string json = record->node_name.empty() ? compact(doc) : std::string();
  std::lock_guard guard(mu_);
  auto& slot = pods_[Key{record->namespace_, record->name}];
  if (slot.record && !force &&
      !resource_version_newer(record->resource_version, slot.record->resource_version)) {
    return false;
  }
  // The name belongs to a new pod now (the old one's deletion was missed:
  // a relist, or a write reply ahead of the watch). The old uid is gone.
  if (slot.record && slot.record->uid != record->uid)
    notes.changes.push_back({Notes::Kind::PodDeleted, nullptr, {}, slot.record});
  slot.record = record;
  slot.json = std::move(json);
  notes.changes.push_back({Notes::Kind::PodUpserted, nullptr, {}, std::move(record)});
  return true;
}

void KubeClusterStore::upsert_pod(const Value& pod, bool force) {
  std::lock_guard order(order_mu_);
  Notes notes;
  apply_pod(pod, force, notes);
  {
    std::lock_guard guard(mu_);
    notes.watchers = watchers_;
  }
  deliver(notes);
}

void KubeClusterStore::delete_pod(const Value& last_state) {
  const auto [ns, name] = split_key(object_key(last_state));
  const std::string rv = resource_version_of(last_state);
  const std::string uid = uid_of(last_state);
  std::lock_guard order(order_mu_);
  Notes notes;
  {
    std::lock_guard guard(mu_);
    const auto it = pods_.find(Key{ns, name});
    if (it == pods_.end() || provably_newer(it->second.record->resource_version, rv))
      return;
    // The deletion of another pod of that name (the one it replaced).
    if (!uid.empty() && it->second.record->uid != uid)
      return;
    notes.changes.push_back({Notes::Kind::PodDeleted, nullptr, {}, it->second.record});
    pods_.erase(it);
    notes.watchers = watchers_;
  }
  deliver(notes);
}

void KubeClusterStore::replace_pods(const Relist& relist) {
  std::lock_guard order(order_mu_);
  Notes notes;
  for (const Value& pod : relist.objects.GetArray())
    apply_pod(pod, false, notes);
  {
    std::lock_guard guard(mu_);
    for (const std::string& key : relist.deleted) {
      auto [ns, name] = split_key(key);
      const auto it = pods_.find(Key{std::move(ns), std::move(name)});
      if (it == pods_.end() ||
          provably_newer(it->second.record->resource_version, relist.resource_version)) {
        continue;
      }
      notes.changes.push_back({Notes::Kind::PodDeleted, nullptr, {}, it->second.record});
      pods_.erase(it);
    }
    notes.watchers = watchers_;
  }
  deliver(notes);
}

std::size_t KubeClusterStore::pod_text_bytes() const {
  std::lock_guard guard(mu_);
  std::size_t bytes = 0;
  for (const auto& [key, slot] : pods_)
    bytes += slot.json.size();
  return bytes;
}

void KubeClusterStore::mark_bound(std::string_view namespace_, std::string_view name,
                                  std::string_view node, std::string_view uid) {
  std::lock_guard order(order_mu_);
  std::string json;
  {
    std::lock_guard guard(mu_);
    const auto it = pods_.find(Key{std::string(namespace_), std::string(name)});
    if (it == pods_.end())
      return;
    if (!uid.empty() && it->second.record->uid != uid)
      return;
    if (!it->second.record->node_name.empty())
      return;
    json = it->second.json;
  }
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject())
    return;
  set_node_name(doc, node);
  Notes notes;
  // Under order_mu_ nothing else changed the pod since it was read.
  apply_pod(doc, true, notes);
  {
    std::lock_guard guard(mu_);
    notes.watchers = watchers_;
  }
  deliver(notes);
}

// --- nodes -------------------------------------------------------------------

bool KubeClusterStore::apply_node(const Value& node, Notes& notes) {
  {
    const std::string rv = resource_version_of(node);
    std::lock_guard guard(mu_);
    const auto it = nodes_.find(object_key(node));
    if (it != nodes_.end() && !resource_version_newer(rv, it->second->resource_version()))
      return false;
  }
  const rapidjson::Document doc = trimmed(node, trim_node);
  std::shared_ptr<const k8s::NodeModel> model;
  try {
    model = cluster::make_node_model(doc);
  } catch (const k8s::ObjectError& e) {
    rejected("Node", node, e.what());
    return false;
  }
  std::lock_guard guard(mu_);
  auto& slot = nodes_[std::string(model->name())];
  if (slot && !resource_version_newer(model->resource_version(), slot->resource_version()))
    return false;
  slot = model;
  notes.changes.push_back({Notes::Kind::NodeUpserted, std::move(model), {}, nullptr});
  return true;
}

void KubeClusterStore::upsert_node(const Value& node) {
  std::lock_guard order(order_mu_);
  Notes notes;
  apply_node(node, notes);
  {
    std::lock_guard guard(mu_);
    notes.watchers = watchers_;
  }
  deliver(notes);
}

void KubeClusterStore::delete_node(const Value& last_state) {
  const std::string name = object_key(last_state);
  const std::string rv = resource_version_of(last_state);
  std::lock_guard order(order_mu_);
  Notes notes;
  {
    std::lock_guard guard(mu_);
    const auto it = nodes_.find(name);
    if (it == nodes_.end() || provably_newer(it->second->resource_version(), rv))
      return;
    nodes_.erase(it);
    notes.changes.push_back({Notes::Kind::NodeDeleted, nullptr, name, nullptr});
    notes.watchers = watchers_;
  }
  deliver(notes);
}

void KubeClusterStore::delete_node_named(std::string_view name) {
  std::lock_guard order(order_mu_);
  Notes notes;
  {
    std::lock_guard guard(mu_);
    const auto it = nodes_.find(name);
    if (it == nodes_.end())
      return;
    nodes_.erase(it);
    notes.changes.push_back({Notes::Kind::NodeDeleted, nullptr, std::string(name), nullptr});
    notes.watchers = watchers_;
  }
  deliver(notes);
}

void KubeClusterStore::replace_nodes(const Relist& relist) {
  std::lock_guard order(order_mu_);
  Notes notes;
  for (const Value& node : relist.objects.GetArray())
    apply_node(node, notes);
  {
    std::lock_guard guard(mu_);
    for (const std::string& name : relist.deleted) {
      const auto it = nodes_.find(name);
      if (it == nodes_.end() ||
          provably_newer(it->second->resource_version(), relist.resource_version)) {
        continue;
      }
      nodes_.erase(it);
      notes.changes.push_back({Notes::Kind::NodeDeleted, nullptr, name, nullptr});
    }
    notes.watchers = watchers_;
  }
  deliver(notes);
}

// --- quotas ------------------------------------------------------------------

bool KubeClusterStore::apply_quota(const Value& quota, Notes& notes) {
  const rapidjson::Document doc = trimmed(quota, trim_quota);
  cluster::ResourceQuotaRecord record = cluster::make_quota_record(doc);
  if (record.name.empty())
    return false;
  std::string rv = resource_version_of(doc);
  std::lock_guard guard(mu_);
  const Key key{record.namespace_, record.name};
  const auto it = quotas_.find(key);
  if (it != quotas_.end() && !resource_version_newer(rv, it->second.resource_version))
    return false;
  quotas_.insert_or_assign(key, StoredQuota{std::move(record), std::move(rv)});
  if (notes.changes.empty() || notes.changes.back().kind != Notes::Kind::QuotasChanged)
    notes.changes.push_back({Notes::Kind::QuotasChanged, nullptr, {}, nullptr});
  return true;
}

void KubeClusterStore::upsert_quota(const Value& quota) {
  std::lock_guard order(order_mu_);
  Notes notes;
  apply_quota(quota, notes);
  {
    std::lock_guard guard(mu_);
    notes.watchers = watchers_;
  }
  deliver(notes);
}

void KubeClusterStore::delete_quota(const Value& last_state) {
  auto [ns, name] = split_key(object_key(last_state));
  if (ns.empty())
    ns = "default";
  const std::string rv = resource_version_of(last_state);
  std::lock_guard order(order_mu_);
  Notes notes;
  {
    std::lock_guard guard(mu_);
    const auto it = quotas_.find(Key{ns, name});
    if (it == quotas_.end() || provably_newer(it->second.resource_version, rv))
      return;
    quotas_.erase(it);
    notes.changes.push_back({Notes::Kind::QuotasChanged, nullptr, {}, nullptr});
    notes.watchers = watchers_;
  }
  deliver(notes);
}

void KubeClusterStore::replace_quotas(const Relist& relist) {
  std::lock_guard order(order_mu_);
  Notes notes;
  for (const Value& quota : relist.objects.GetArray())
    apply_quota(quota, notes);
  {
    std::lock_guard guard(mu_);
    bool removed = false;
    for (const std::string& key : relist.deleted) {
      auto [ns, name] = split_key(key);
      if (ns.empty())
        ns = "default";
      const auto it = quotas_.find(Key{std::move(ns), std::move(name)});
      if (it == quotas_.end() ||
          provably_newer(it->second.resource_version, relist.resource_version)) {
        continue;
      }
      quotas_.erase(it);
      removed = true;
    }
    if (removed && notes.changes.empty())
      notes.changes.push_back({Notes::Kind::QuotasChanged, nullptr, {}, nullptr});
    notes.watchers = watchers_;
  }
  deliver(notes);
}

// --- namespaces (no watcher feed: ClusterWatcher has no namespace events) ---

bool KubeClusterStore::apply_namespace(const Value& namespace_object, Notes&) {
  const rapidjson::Document doc = trimmed(namespace_object, trim_namespace);
  cluster::NamespaceRecord record = cluster::make_namespace_record(doc);
  if (record.name.empty())
    return false;
  std::string rv = resource_version_of(doc);
  std::lock_guard guard(mu_);
  const auto it = namespaces_.find(record.name);
  if (it != namespaces_.end() && !resource_version_newer(rv, it->second.resource_version))
    return false;
  std::string name = record.name;
  namespaces_.insert_or_assign(std::move(name), StoredNamespace{std::move(record), std::move(rv)});
  return true;
}

void KubeClusterStore::upsert_namespace(const Value& namespace_object) {
  std::lock_guard order(order_mu_);
  Notes notes;
  apply_namespace(namespace_object, notes);
}

void KubeClusterStore::delete_namespace(const Value& last_state) {
  const std::string name = object_key(last_state);
  const std::string rv = resource_version_of(last_state);
  std::lock_guard order(order_mu_);
  std::lock_guard guard(mu_);
  const auto it = namespaces_.find(name);
  if (it != namespaces_.end() && !provably_newer(it->second.resource_version, rv))
    namespaces_.erase(it);
}

void KubeClusterStore::replace_namespaces(const Relist& relist) {
  std::lock_guard order(order_mu_);
  Notes notes;
  for (const Value& ns : relist.objects.GetArray())
    apply_namespace(ns, notes);
  std::lock_guard guard(mu_);
  for (const std::string& name : relist.deleted) {
    const auto it = namespaces_.find(name);
    if (it != namespaces_.end() &&
        !provably_newer(it->second.resource_version, relist.resource_version)) {
      namespaces_.erase(it);
    }
  }
}

}  // namespace hami::kube
