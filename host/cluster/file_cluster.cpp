#include "cluster/file_cluster.hpp"

#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <fstream>
#include <stdexcept>

#include "cluster/object_records.hpp"
#include "config/yaml_documents.hpp"
#include "config/yaml_json.hpp"
#include "k8s/json_depth.hpp"
#include "k8s/object_error.hpp"

namespace hami::cluster {

namespace {

using rapidjson::Value;
using Allocator = rapidjson::Document::AllocatorType;

// RapidJSON's default number parsing. Its full-precision mode would keep
// every double exact, but in 1.1.0 it normalises a zero significand with
// __builtin_clzll(0) (undefined) for numbers like 0e44.
constexpr unsigned kParseFlags = rapidjson::kParseDefaultFlags;

Value json_string(std::string_view text, Allocator& a) {
  return Value(text.data(), static_cast<rapidjson::SizeType>(text.size()), a);
}

const Value* find_member(const Value& object, std::string_view key) {
  if (!object.IsObject())
    return nullptr;
  const Value name(rapidjson::StringRef(key.data(), key.size()));
  const auto it = object.FindMember(name);
  return it == object.MemberEnd() ? nullptr : &it->value;
}

Value* find_member(Value& object, std::string_view key) {
  if (!object.IsObject())
    return nullptr;
  const Value name(rapidjson::StringRef(key.data(), key.size()));
  const auto it = object.FindMember(name);
  return it == object.MemberEnd() ? nullptr : &it->value;
}

std::string string_at(const Value& object, std::string_view key) {
  const Value* v = find_member(object, key);
  return v != nullptr && v->IsString() ? std::string(v->GetString(), v->GetStringLength())
                                       : std::string();
}

// The object member `key`, created (or replacing a null / non-object) when
// needed.
Value& ensure_object(Value& parent, std::string_view key, Allocator& a) {
  if (Value* existing = find_member(parent, key)) {
    if (!existing->IsObject())
      existing->SetObject();
    return *existing;
  }
  parent.AddMember(json_string(key, a), Value(rapidjson::kObjectType), a);
  return (parent.MemberEnd() - 1)->value;
}

void set_string(Value& object, std::string_view key, std::string_view value, Allocator& a) {
  if (Value* existing = find_member(object, key)) {
    existing->SetString(value.data(), static_cast<rapidjson::SizeType>(value.size()), a);
    return;
  }
  object.AddMember(json_string(key, a), json_string(value, a), a);
}

void remove_member(Value& object, std::string_view key) {
  const Value name(rapidjson::StringRef(key.data(), key.size()));
  object.EraseMember(name);
}

void apply_writes(Value& metadata, std::string_view map_key,
                  const std::vector<MetadataWrite>& writes, Allocator& a) {
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

std::string_view kind_of(const Value& object) {
  const Value* kind = find_member(object, "kind");
  return kind != nullptr && kind->IsString()
             ? std::string_view(kind->GetString(), kind->GetStringLength())
             : std::string_view();
}

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

std::optional<uint64_t> numeric(std::string_view text) {
  uint64_t v = 0;
  const auto res = std::from_chars(text.data(), text.data() + text.size(), v);
  if (res.ec != std::errc() || res.ptr != text.data() + text.size())
    return std::nullopt;
  return v;
}

// A value the JSON writer cannot spell: RapidJSON's default number parsing
// reads some numbers just past the largest double (1.7976931348623159e308)
// as infinity instead of refusing them, and the writer then stops mid-text.
class NotRepresentable : public std::runtime_error {
 public:
  NotRepresentable() : std::runtime_error("a number is beyond the range of a double") {}
};

std::string to_compact_json(const Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  if (!v.Accept(writer))
    throw NotRepresentable();
  return {buffer.GetString(), buffer.GetSize()};
}

// A stored object's text, which this store wrote, as a document to change.
rapidjson::Document parse_stored(const std::string& json) {
  rapidjson::Document doc;
  doc.Parse<kParseFlags>(json.data(), json.size());
  if (doc.HasParseError())
    throw std::logic_error("file cluster: a stored object is not valid JSON");
  return doc;
}

}  // namespace

struct FileClusterState::Notes {
  std::vector<std::shared_ptr<const k8s::NodeModel>> nodes;
  std::vector<std::string> deleted_nodes;
  // Upserts and deletions in the order they were made: a pod re-created
  // under its name is a deletion of the old uid, then an upsert.
  struct PodChange {
    std::shared_ptr<const PodRecord> record;
    bool deleted = false;
  };
  std::vector<PodChange> pods;
  bool quotas = false;
  std::vector<ClusterWatcher*> watchers;
};

FileClusterState::FileClusterState() = default;
FileClusterState::~FileClusterState() = default;

std::unique_ptr<FileClusterState> FileClusterState::load(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw SnapshotError(file.string() + ": cannot open the cluster snapshot");
  std::string text;
  // Sized once when the size is known: growing a string by doubling while
  // reading a multi-megabyte snapshot held up to twice its size.
  std::error_code size_error;
  if (const auto size = std::filesystem::file_size(file, size_error); !size_error)
    text.reserve(size);
  std::array<char, 64 * 1024> chunk{};
  while (in.read(chunk.data(), chunk.size()) || in.gcount() > 0)
    text.append(chunk.data(), static_cast<size_t>(in.gcount()));
  if (in.bad())
    throw SnapshotError(file.string() + ": cannot read the cluster snapshot");
  auto state = std::make_unique<FileClusterState>();
  state->load_text(std::move(text), file.string());
  return state;
}

std::unique_ptr<FileClusterState> FileClusterState::from_text(std::string_view text,
                                                              std::string_view origin) {
  auto state = std::make_unique<FileClusterState>();
  state->load_text(std::string(text), origin);
  return state;
}

namespace {

// One document of a snapshot, parsed in place: its strings stay in `text`.
// Its pool's chunks follow the text's size: a large snapshot's are big
// enough to be mapped on their own and handed back whole when loading is
// done, and a YAML stream of many tiny documents does not reserve a large
// chunk for each.
struct SnapshotDocument {
  static constexpr size_t kMinChunkBytes = 4 * 1024;
  static constexpr size_t kMaxChunkBytes = 1024 * 1024;

  explicit SnapshotDocument(std::string json)
      : text(std::move(json)),
        pool(std::clamp(text.size(), kMinChunkBytes, kMaxChunkBytes)),
        doc(&pool) {}
  SnapshotDocument(const SnapshotDocument&) = delete;
  SnapshotDocument& operator=(const SnapshotDocument&) = delete;

  std::string text;
  rapidjson::MemoryPoolAllocator<> pool;
  rapidjson::Document doc;
};

// How much JSON a YAML snapshot may convert to, all documents together:
// far more than any real snapshot needs (JSON is rarely longer than the
// YAML it came from), far less than an alias bomb asks for.
size_t yaml_json_budget(size_t yaml_bytes) {
  return 8 * yaml_bytes + 1024 * 1024;
}

// The parser, the writer and the destructor all recurse per level.
void refuse_deep_nesting(std::string_view json, const std::string& where) {
  if (k8s::json_nests_deeper_than(json, k8s::kMaxJsonDepth)) {
    throw SnapshotError(where + ": nests JSON deeper than " + std::to_string(k8s::kMaxJsonDepth) +
                        " levels");
  }
}

}  // namespace

void FileClusterState::load_text(std::string text, std::string_view origin) {
  const std::string where(origin);
  std::vector<std::unique_ptr<SnapshotDocument>> docs;
  // Neither format allows one, and the in-place JSON parse would stop at it
  // and ignore the rest.
  if (const size_t nul = text.find('\0'); nul != std::string::npos) {
    throw SnapshotError(where + ": a NUL byte at offset " + std::to_string(nul) +
                        " (neither JSON nor YAML text may contain one)");
  }
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (text[first] == '{' || text[first] == '[')) {
    refuse_deep_nesting(text, where);
    auto& parsed = *docs.emplace_back(std::make_unique<SnapshotDocument>(std::move(text)));
    parsed.doc.ParseInsitu<kParseFlags>(parsed.text.data());
    if (parsed.doc.HasParseError()) {
      throw SnapshotError(where + ": invalid JSON at offset " +
                          std::to_string(parsed.doc.GetErrorOffset()) + ": " +
                          rapidjson::GetParseError_En(parsed.doc.GetParseError()));
    }
  } else {
    std::vector<YAML::Node> yaml_docs;
    try {
      yaml_docs = config::load_yaml_documents(text);
    } catch (const YAML::Exception& e) {
      throw SnapshotError(where + ": invalid YAML: " + e.what());
    }
    size_t budget = yaml_json_budget(text.size());
    std::string().swap(text);
    for (const YAML::Node& node : yaml_docs) {
      if (!node || node.IsNull())
        continue;
      std::string json;
      try {
        json = config::yaml_to_json(node, where, "", budget);
      } catch (const std::exception& e) {
        throw SnapshotError(e.what());
      }
      budget -= json.size();
      refuse_deep_nesting(json, where);
      auto& parsed = *docs.emplace_back(std::make_unique<SnapshotDocument>(std::move(json)));
      parsed.doc.ParseInsitu<kParseFlags>(parsed.text.data());
      if (parsed.doc.HasParseError())
        throw SnapshotError(where + ": document is not representable");
    }
  }

  // Start the revision counter above every numeric resourceVersion in the
  // snapshot, so a revision this store hands out never repeats one a
  // caller may have read.
  const auto scan = [&](const Value& object) {
    if (const Value* meta = find_member(object, "metadata")) {
      if (const auto rv = numeric(string_at(*meta, "resourceVersion"))) {
        revision_ = std::max(revision_, *rv);
      }
    }
  };
  for (const auto& parsed : docs) {
    const Value& doc = parsed->doc;
    if (doc.IsArray()) {
      for (const Value& item : doc.GetArray())
        scan(item);
    } else if (const Value* items = find_member(doc, "items"); items && items->IsArray()) {
      for (const Value& item : items->GetArray())
        scan(item);
    } else {
      scan(doc);
    }
  }

  Notes notes;
  for (const auto& parsed : docs) {
    Value& doc = parsed->doc;
    Allocator& allocator = parsed->doc.GetAllocator();
    if (doc.IsArray()) {
      for (Value& item : doc.GetArray())
        add_object(item, allocator, kind_of(item), where, notes);
      continue;
    }
    if (!doc.IsObject())
      throw SnapshotError(where + ": a document must be an object or a list");
    const std::string_view kind = kind_of(doc);
    if (kind.size() >= 4 && kind.substr(kind.size() - 4) == "List") {
      Value* items = find_member(doc, "items");
      if (items == nullptr || items->IsNull())
        continue;
      if (!items->IsArray())
        throw SnapshotError(where + ": " + std::string(kind) + " items must be an array");
      // Items of typed lists (NodeList) usually carry no kind of their own.
      const std::string_view item_kind =
          kind == "List" ? std::string_view() : kind.substr(0, kind.size() - 4);
      for (Value& item : items->GetArray()) {
        const std::string_view own = kind_of(item);
        add_object(item, allocator, own.empty() ? item_kind : own, where, notes);
      }
      continue;
    }
    add_object(doc, allocator, kind, where, notes);
  }
}

std::string FileClusterState::next_revision() {
  return std::to_string(++revision_);
}

std::shared_ptr<const k8s::NodeModel> FileClusterState::node_model(const Value& node) {
  return make_node_model(node);
}

std::shared_ptr<const PodRecord> FileClusterState::pod_record(const Value& pod) {
  return make_pod_record(pod);
}

// Caller holds mu_ (or owns the store).
void FileClusterState::add_object(Value& object, Allocator& a, std::string_view kind,
                                  std::string_view origin, Notes& notes) {
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
      stored.model = node_model(object);
      stored.json = to_compact_json(object);
      notes.nodes.push_back(stored.model);
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
      stored.record = pod_record(object);
      stored.json = to_compact_json(object);
      PodKey key{ns, name};
      // The name now belongs to another pod: the old one is gone, and
      // watchers (the usage ledger, keyed by uid) must hear so first.
      if (const auto old = pods_.find(key);
          old != pods_.end() && old->second.record->uid != stored.record->uid) {
        notes.pods.push_back({old->second.record, true});
      }
      notes.pods.push_back({stored.record, false});
      pods_.insert_or_assign(std::move(key), std::move(stored));
    } else if (kind_text == "ResourceQuota") {
      std::string ns = string_at(meta, "namespace");
      if (ns.empty())
        ns = "default";
      StoredQuota stored;
      stored.record = make_quota_record(object, ns);
      stored.json = to_compact_json(object);
      quotas_.insert_or_assign(PodKey{ns, name}, std::move(stored));
      notes.quotas = true;
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

void FileClusterState::deliver(const Notes& notes) {
  for (ClusterWatcher* w : notes.watchers) {
    for (const auto& n : notes.nodes)
      w->node_upserted(n);
    for (const auto& n : notes.deleted_nodes)
      w->node_deleted(n);
    for (const auto& p : notes.pods) {
      if (p.deleted)
        w->pod_deleted(p.record);
      else
        w->pod_upserted(p.record);
    }
    if (notes.quotas)
      w->quotas_changed();
  }
}

void FileClusterState::upsert(const rapidjson::Value& object, std::string_view origin) {
  std::lock_guard order(notify_mu_);
  Notes notes;
  {
    std::lock_guard guard(mu_);
    rapidjson::Document copy;
    copy.CopyFrom(object, copy.GetAllocator());
    add_object(copy, copy.GetAllocator(), kind_of(object), origin, notes);
    notes.watchers = watchers_;
  }
  deliver(notes);
}

void FileClusterState::delete_node(std::string_view name) {
  std::lock_guard order(notify_mu_);
  Notes notes;
  {
    std::lock_guard guard(mu_);
    const auto it = nodes_.find(name);
    if (it == nodes_.end())
      return;
    nodes_.erase(it);
    notes.deleted_nodes.emplace_back(name);
    notes.watchers = watchers_;
  }
  deliver(notes);
}

void FileClusterState::delete_pod(std::string_view namespace_, std::string_view name) {
  std::lock_guard order(notify_mu_);
  Notes notes;
  {
    std::lock_guard guard(mu_);
    const auto it = pods_.find(PodKey{std::string(namespace_), std::string(name)});
    if (it == pods_.end())
      return;
    notes.pods.push_back({it->second.record, true});
    pods_.erase(it);
    notes.watchers = watchers_;
  }
  deliver(notes);
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
  std::lock_guard order(notify_mu_);
  Notes notes;
  {
    std::lock_guard guard(mu_);
    watchers_.push_back(&watcher);
    for (const auto& [_, n] : nodes_)
      notes.nodes.push_back(n.model);
    for (const auto& [_, p] : pods_)
      notes.pods.push_back({p.record, false});
    notes.quotas = true;
    notes.watchers = {&watcher};
  }
  deliver(notes);
}

void FileClusterState::unwatch(ClusterWatcher& watcher) {
  std::lock_guard order(notify_mu_);
  std::lock_guard guard(mu_);
  watchers_.erase(std::remove(watchers_.begin(), watchers_.end(), &watcher), watchers_.end());
}

void FileClusterState::patch_pod_metadata(std::string_view namespace_, std::string_view name,
                                          const PodMetadataPatch& patch,
                                          std::optional<std::string_view> expected_uid) {
  std::lock_guard order(notify_mu_);
  Notes notes;
  {
    std::lock_guard guard(mu_);
    const auto it = pods_.find(PodKey{std::string(namespace_), std::string(name)});
    if (it == pods_.end()) {
      throw ClusterError(ErrorKind::NotFound, "pods \"" + std::string(name) + "\" not found");
    }
    StoredPod& stored = it->second;
    if (std::string unmet = unmet_precondition(*stored.record, patch, expected_uid);
        !unmet.empty()) {
      throw ClusterError(ErrorKind::Conflict, unmet);
    }
    // Work on a copy so a pod the model rejects leaves the store unchanged.
    rapidjson::Document doc = parse_stored(stored.json);
    auto& a = doc.GetAllocator();
    Value& meta = ensure_object(doc, "metadata", a);
    apply_writes(meta, "annotations", patch.annotations, a);
    apply_writes(meta, "labels", patch.labels, a);
    // As the API server: a patch that changes nothing writes nothing (no
    // new resourceVersion, no watch event).
    if (to_compact_json(doc) == stored.json)
      return;
    set_string(meta, "resourceVersion", next_revision(), a);
    std::shared_ptr<const PodRecord> record;
    try {
      record = pod_record(doc);
    } catch (const k8s::ObjectError& e) {
      throw ClusterError(ErrorKind::Invalid, e.what());
    }
    stored.json = to_compact_json(doc);
    stored.record = record;
    notes.pods.push_back({std::move(record), false});
    notes.watchers = watchers_;
  }
  deliver(notes);
}

void FileClusterState::patch_node_annotations(
    std::string_view node, const std::vector<MetadataWrite>& annotations,
    std::optional<std::string_view> expected_resource_version) {
  std::lock_guard order(notify_mu_);
  Notes notes;
  {
    std::lock_guard guard(mu_);
    const auto it = nodes_.find(node);
    if (it == nodes_.end()) {
      throw ClusterError(ErrorKind::NotFound, "nodes \"" + std::string(node) + "\" not found");
    }
    StoredNode& stored = it->second;
    if (expected_resource_version &&
        stored.model->resource_version() != *expected_resource_version) {
      throw ClusterError(ErrorKind::Conflict,
                         "Operation cannot be fulfilled on nodes \"" + std::string(node) +
                             "\": the object has been modified; please apply your changes to the "
                             "latest version and try again");
    }
    rapidjson::Document doc = parse_stored(stored.json);
    auto& a = doc.GetAllocator();
    Value& meta = ensure_object(doc, "metadata", a);
    apply_writes(meta, "annotations", annotations, a);
    set_string(meta, "resourceVersion", next_revision(), a);
    std::shared_ptr<const k8s::NodeModel> model;
    try {
      model = node_model(doc);
    } catch (const k8s::ObjectError& e) {
      throw ClusterError(ErrorKind::Invalid, e.what());
    }
    stored.json = to_compact_json(doc);
    stored.model = model;
    notes.nodes.push_back(std::move(model));
    notes.watchers = watchers_;
  }
  deliver(notes);
}

void FileClusterState::bind(std::string_view namespace_, std::string_view name,
                            std::string_view uid, std::string_view node) {
  std::lock_guard order(notify_mu_);
  Notes notes;
  {
    std::lock_guard guard(mu_);
    const auto it = pods_.find(PodKey{std::string(namespace_), std::string(name)});
    if (it == pods_.end()) {
      throw ClusterError(ErrorKind::NotFound, "pods \"" + std::string(name) + "\" not found");
    }
    StoredPod& stored = it->second;
    if (!uid.empty() && stored.record->uid != uid) {
      throw ClusterError(ErrorKind::Conflict,
                         "Precondition failed: UID in precondition: " + std::string(uid) +
                             ", UID in object meta: " + stored.record->uid);
    }
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
    set_string(ensure_object(doc, "metadata", a), "resourceVersion", next_revision(), a);
    auto record = pod_record(doc);
    stored.json = to_compact_json(doc);
    stored.record = record;
    notes.pods.push_back({std::move(record), false});
    notes.watchers = watchers_;
  }
  deliver(notes);
}

namespace {

size_t event_text_bytes(const Event& e) {
  return e.kind.size() + e.namespace_.size() + e.name.size() + e.uid.size() + e.type.size() +
         e.reason.size() + e.message.size() + e.component.size();
}

}  // namespace

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
