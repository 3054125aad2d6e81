// FileClusterState's ClusterState writes: pod metadata patches, node
// annotation patches and bindings, each checked against its preconditions
// the way the API server checks them, and stored with a new revision.
#include <memory>
#include <stdexcept>
#include <string>

#include "cluster/file_cluster.hpp"
#include "cluster/json_members.hpp"
#include "cluster/object_records.hpp"
#include "k8s/object_error.hpp"

namespace hami::cluster {

namespace {

using rapidjson::Value;

void apply_writes(Value& metadata, std::string_view map_key,
                  const std::vector<MetadataWrite>& writes, JsonAllocator& a) {
  if (writes.empty())
    return;
  Value& map = ensure_object(metadata, map_key, a);
  for (const MetadataWrite& w : writes) {
    if (w.value) {
      set_string(map, w.key, *w.value, a);
    } else {
      remove_member(map, w.key);
    }
  }
}

// A stored object's text, which this store wrote, as a document to change.
// Edits work on it, so an object the model rejects leaves the store
// unchanged.
rapidjson::Document parse_stored(const std::string& json) {
  rapidjson::Document doc;
  doc.Parse<kJsonParseFlags>(json.data(), json.size());
  if (doc.HasParseError())
    throw std::logic_error("file cluster: a stored object is not valid JSON");
  return doc;
}

// Builds the model of an edited object; one it rejects is an Invalid write.
template <typename Build>
auto rebuilt(const Value& object, Build build) {
  try {
    return build(object);
  } catch (const k8s::ObjectError& e) {
    throw ClusterError(ErrorKind::Invalid, e.what());
  }
}

}  // namespace

// Caller holds mu_.
FileClusterState::StoredPod& FileClusterState::stored_pod(std::string_view namespace_,
                                                          std::string_view name) {
  const auto it = pods_.find(PodKey{std::string(namespace_), std::string(name)});
  if (it == pods_.end())
    throw ClusterError(ErrorKind::NotFound, "pods \"" + std::string(name) + "\" not found");
  return it->second;
}

// Caller holds mu_.
void FileClusterState::store_pod_version(StoredPod& stored, rapidjson::Document& doc,
                                         WatcherNotes& notes) {
  auto& a = doc.GetAllocator();
  set_string(ensure_object(doc, "metadata", a), "resourceVersion", next_revision(), a);
  auto record = rebuilt(doc, make_pod_record);
  stored.json = to_compact_json(doc);
  stored.record = record;
  notes.pod_upserted(std::move(record));
}

void FileClusterState::patch_pod_metadata(std::string_view namespace_, std::string_view name,
                                          const PodMetadataPatch& patch,
                                          std::optional<std::string_view> expected_uid) {
  feed_.change([&](WatcherNotes& notes) {
    std::lock_guard guard(mu_);
    StoredPod& stored = stored_pod(namespace_, name);
    if (std::string unmet = unmet_precondition(*stored.record, patch, expected_uid);
        !unmet.empty()) {
      throw ClusterError(ErrorKind::Conflict, unmet);
    }
    rapidjson::Document doc = parse_stored(stored.json);
    auto& a = doc.GetAllocator();
    Value& meta = ensure_object(doc, "metadata", a);
    apply_writes(meta, "annotations", patch.annotations, a);
    apply_writes(meta, "labels", patch.labels, a);
    // As the API server: a patch that changes nothing writes nothing (no
    // new resourceVersion, no watch event).
    if (to_compact_json(doc) == stored.json)
      return;
    store_pod_version(stored, doc, notes);
  });
}

void FileClusterState::patch_node_annotations(
    std::string_view node, const std::vector<MetadataWrite>& annotations,
    std::optional<std::string_view> expected_resource_version) {
  feed_.change([&](WatcherNotes& notes) {
    std::lock_guard guard(mu_);
    const auto it = nodes_.find(node);
    if (it == nodes_.end()) {
      throw ClusterError(ErrorKind::NotFound, "nodes \"" + std::string(node) + "\" not found");
    }
    StoredNode& stored = it->second;
    if (expected_resource_version &&
        stored.model->resource_version() != *expected_resource_version) {
      throw ClusterError(ErrorKind::Conflict, modified_since_read("nodes", node));
    }
    rapidjson::Document doc = parse_stored(stored.json);
    auto& a = doc.GetAllocator();
    Value& meta = ensure_object(doc, "metadata", a);
    apply_writes(meta, "annotations", annotations, a);
    set_string(meta, "resourceVersion", next_revision(), a);
    auto model = rebuilt(doc, make_node_model);
    stored.json = to_compact_json(doc);
    stored.model = model;
    notes.node_upserted(std::move(model));
  });
}

void FileClusterState::bind(std::string_view namespace_, std::string_view name,
                            std::string_view uid, std::string_view node) {
  feed_.change([&](WatcherNotes& notes) {
    std::lock_guard guard(mu_);
    StoredPod& stored = stored_pod(namespace_, name);
    if (std::string unmet = unmet_precondition(*stored.record, {}, uid); !unmet.empty())
      throw ClusterError(ErrorKind::Conflict, unmet);
    if (!stored.record->node_name.empty()) {
      if (stored.record->node_name == node)
        return;
      throw ClusterError(ErrorKind::Conflict,
                         "Operation cannot be fulfilled on pods/binding \"" + std::string(name) +
                             "\": pod " + std::string(name) + " is already assigned to node \"" +
                             stored.record->node_name + "\"");
    }
    if (stored.record->terminating) {
      throw ClusterError(ErrorKind::Conflict, "pod " + std::string(name) + " is being deleted");
    }
    rapidjson::Document doc = parse_stored(stored.json);
    auto& a = doc.GetAllocator();
    set_string(ensure_object(doc, "spec", a), "nodeName", node, a);
    store_pod_version(stored, doc, notes);
  });
}

}  // namespace hami::cluster
