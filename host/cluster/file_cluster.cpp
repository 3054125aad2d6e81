#include "cluster/file_cluster.hpp"

#include <stdexcept>

#include "cluster/json_members.hpp"
#include "cluster/object_records.hpp"
#include "k8s/object_error.hpp"

namespace hami::cluster {

namespace {

using rapidjson::Value;

std::string describe(std::string_view kind, const Value& object) {
  std::string out(kind.empty() ? "object" : kind);
  if (const Value* meta = find_member(object, "metadata"); meta != nullptr && meta->IsObject()) {
    const std::string ns = string_at(*meta, "namespace");
    const std::string name = string_at(*meta, "name");
    out += " ";
    out += ns.empty() ? name : ns + "/" + name;
  }
  return out;
}

size_t event_text_bytes(const Event& e) {
  return e.kind.size() + e.namespace_.size() + e.name.size() + e.uid.size() + e.type.size() +
         e.reason.size() + e.message.size() + e.component.size();
}

}  // namespace

FileClusterState::FileClusterState() = default;
FileClusterState::~FileClusterState() = default;

std::string FileClusterState::next_revision() {
  return std::to_string(++revision_);
}

// Caller holds mu_ (or owns the store).
void FileClusterState::add_object(Value& object, JsonAllocator& a, std::string_view kind,
                                  std::string_view origin, WatcherNotes& notes) {
  if (kind != "Node" && kind != "Pod" && kind != "ResourceQuota" && kind != "Namespace")
    return;
  if (!object.IsObject()) {
    throw SnapshotError(std::string(origin) + ": a " + std::string(kind) + " must be an object");
  }
  // `kind` may view a string of `object` itself; adding members may move
  // it, so it is copied first.
  const std::string kind_text(kind);
  // Stored with the kind it was taken for, so the store's own dump reads
  // back the same (an item of a PodList with "kind": 5 or "" is a Pod).
  if (const Value* own = find_member(object, "kind");
      own == nullptr || !own->IsString() || own->GetStringLength() == 0) {
    set_string(object, "kind", kind_text, a);
  }
  Value& meta = ensure_object(object, "metadata", a);
  const std::string name = string_at(meta, "name");
  if (name.empty()) {
    throw SnapshotError(std::string(origin) + ": " + describe(kind_text, object) +
                        ": /metadata/name: is required");
  }
  if (string_at(meta, "resourceVersion").empty()) {
    set_string(meta, "resourceVersion", next_revision(), a);
  }
  const std::string context = std::string(origin) + ": " + describe(kind_text, object);
  try {
    if (kind_text == "Node") {
      StoredNode stored;
      stored.model = make_node_model(object);
      stored.json = to_compact_json(object);
      notes.node_upserted(stored.model);
      nodes_.insert_or_assign(name, std::move(stored));
    } else if (kind_text == "Pod") {
      std::string ns = string_at(meta, "namespace");
      if (ns.empty()) {
        ns = "default";
        set_string(meta, "namespace", ns, a);
      }
      if (string_at(meta, "uid").empty())
        set_string(meta, "uid", "file-" + ns + "-" + name, a);
      StoredPod stored;
      stored.record = make_pod_record(object);
      stored.json = to_compact_json(object);
      PodKey key{ns, name};
      const auto old = pods_.find(key);
      notes.pod_stored(old == pods_.end() ? nullptr : old->second.record, stored.record);
      pods_.insert_or_assign(std::move(key), std::move(stored));
    } else if (kind_text == "ResourceQuota") {
      std::string ns = string_at(meta, "namespace");
      if (ns.empty())
        ns = "default";
      StoredQuota stored;
      stored.record = make_quota_record(object, ns);
      stored.json = to_compact_json(object);
      quotas_.insert_or_assign(PodKey{ns, name}, std::move(stored));
      notes.quotas_changed();
    } else {
      StoredNamespace stored;
      stored.record = make_namespace_record(object);
      stored.json = to_compact_json(object);
      namespaces_.insert_or_assign(name, std::move(stored));
    }
  } catch (const k8s::ObjectError& e) {
    throw SnapshotError(context + ": " + e.what());
  } catch (const NotRepresentable& e) {
    throw SnapshotError(context + ": " + e.what());
  }
}

void FileClusterState::upsert(const rapidjson::Value& object, std::string_view origin) {
  feed_.change([&](WatcherNotes& notes) {
    std::lock_guard guard(mu_);
    rapidjson::Document copy;
    copy.CopyFrom(object, copy.GetAllocator());
    add_object(copy, copy.GetAllocator(), kind_of(object), origin, notes);
  });
}

void FileClusterState::delete_node(std::string_view name) {
  feed_.change([&](WatcherNotes& notes) {
    std::lock_guard guard(mu_);
    const auto it = nodes_.find(name);
    if (it == nodes_.end())
      return;
    nodes_.erase(it);
    notes.node_deleted(std::string(name));
  });
}

void FileClusterState::delete_pod(std::string_view namespace_, std::string_view name) {
  feed_.change([&](WatcherNotes& notes) {
    std::lock_guard guard(mu_);
    const auto it = pods_.find(PodKey{std::string(namespace_), std::string(name)});
    if (it == pods_.end())
      return;
    notes.pod_deleted(it->second.record);
    pods_.erase(it);
  });
}

std::vector<Event> FileClusterState::events() const {
  std::lock_guard guard(mu_);
  return {events_.begin(), events_.end()};
}

std::string FileClusterState::to_json() const {
  std::lock_guard guard(mu_);
  std::string out = R"({"apiVersion":"v1","kind":"List","items":[)";
  const char* separator = "";
  const auto add = [&](const std::string& json) {
    out += separator;
    out += json;
    separator = ",";
  };
  for (const auto& [_, n] : nodes_)
    add(n.json);
  for (const auto& [_, p] : pods_)
    add(p.json);
  for (const auto& [_, q] : quotas_)
    add(q.json);
  for (const auto& [_, ns] : namespaces_)
    add(ns.json);
  out += "]}";
  return out;
}

std::shared_ptr<const k8s::NodeModel> FileClusterState::node(std::string_view name) const {
  std::lock_guard guard(mu_);
  const auto it = nodes_.find(name);
  return it == nodes_.end() ? nullptr : it->second.model;
}

std::vector<std::shared_ptr<const k8s::NodeModel>> FileClusterState::nodes() const {
  std::lock_guard guard(mu_);
  std::vector<std::shared_ptr<const k8s::NodeModel>> out;
  out.reserve(nodes_.size());
  for (const auto& [_, n] : nodes_)
    out.push_back(n.model);
  return out;
}

std::shared_ptr<const PodRecord> FileClusterState::pod(std::string_view namespace_,
                                                       std::string_view name) const {
  std::lock_guard guard(mu_);
  const auto it = pods_.find(PodKey{std::string(namespace_), std::string(name)});
  return it == pods_.end() ? nullptr : it->second.record;
}

std::vector<std::shared_ptr<const PodRecord>> FileClusterState::pods() const {
  std::lock_guard guard(mu_);
  std::vector<std::shared_ptr<const PodRecord>> out;
  out.reserve(pods_.size());
  for (const auto& [_, p] : pods_)
    out.push_back(p.record);
  return out;
}

std::vector<ResourceQuotaRecord> FileClusterState::quotas() const {
  std::lock_guard guard(mu_);
  std::vector<ResourceQuotaRecord> out;
  out.reserve(quotas_.size());
  for (const auto& [_, q] : quotas_)
    out.push_back(q.record);
  return out;
}

std::vector<NamespaceRecord> FileClusterState::namespaces() const {
  std::lock_guard guard(mu_);
  std::vector<NamespaceRecord> out;
  out.reserve(namespaces_.size());
  for (const auto& [_, ns] : namespaces_)
    out.push_back(ns.record);
  return out;
}

void FileClusterState::watch(ClusterWatcher& watcher) {
  feed_.watch(watcher, [&](WatcherNotes& notes) {
    std::lock_guard guard(mu_);
    for (const auto& [_, n] : nodes_)
      notes.node_upserted(n.model);
    for (const auto& [_, p] : pods_)
      notes.pod_upserted(p.record);
    notes.quotas_changed();
  });
}

void FileClusterState::unwatch(ClusterWatcher& watcher) {
  feed_.unwatch(watcher);
}

void FileClusterState::record_event(const Event& event) {
  std::lock_guard guard(mu_);
  events_.push_back(event);
  event_bytes_ += event_text_bytes(event);
  while (events_.size() > 1 && (events_.size() > kEventCapacity || event_bytes_ > kEventBytes)) {
    event_bytes_ -= event_text_bytes(events_.front());
    events_.pop_front();
  }
}

std::unique_ptr<ClusterState> open_cluster_state(std::string_view source,
                                                 const std::filesystem::path& file) {
  if (source == "file") {
    if (file.empty())
      return std::make_unique<FileClusterState>();
    return FileClusterState::load(file);
  }
  if (source == "kubernetes") {
    throw std::invalid_argument(
        "cluster.source \"kubernetes\" needs an API client: it is opened by the extender "
        "stack (kube::KubernetesClusterState), not from a snapshot");
  }
  throw std::invalid_argument("unknown cluster.source \"" + std::string(source) +
                              "\" (expected file or kubernetes)");
}

}  // namespace hami::cluster
