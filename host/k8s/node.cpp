#include "k8s/node.hpp"

#include <initializer_list>
#include <string>
#include <unordered_map>

#include "hami/plugin.hpp"
#include "k8s/json_path.hpp"
#include "k8s/json_read.hpp"
#include "k8s/object_error.hpp"
#include "k8s/string_arena.hpp"
#include "platform/text_hash.hpp"

namespace hami::k8s {

// Every string lives in one arena and the four maps' entries in one vector
// (a few allocations per node instead of one per string and map: nodes
// arrive a thousand at a time in full-Nodes extender calls).
struct NodeModel::Storage {
  StringArena arena;
  std::string_view name;
  std::string_view uid;
  std::string_view resource_version;
  std::vector<hami_kv> entries;
  std::span<const hami_kv> annotations;
  std::span<const hami_kv> labels;
  std::span<const hami_kv> allocatable;
  std::span<const hami_kv> capacity;
  std::vector<uint64_t> annotation_hashes;
  hami_node_view view{};
};

namespace {

using rapidjson::Value;

// JSON allows repeated keys; Go keeps the last value, and the ABI promises
// unique keys, so a repeat replaces the earlier value in its first position.
// Maps are small; larger ones get an index so a hostile object cannot make
// parsing quadratic.
// The map is the entries of `out` from `first` on.
class KvAppender {
 public:
  KvAppender(std::vector<hami_kv>& out, size_t first) : out_(out), first_(first) {}

  void append(hami_str key, hami_str value) {
    if (out_.size() - first_ <= kScanLimit) {
      for (size_t i = first_; i < out_.size(); ++i) {
        if (to_sv(out_[i].key) == to_sv(key)) {
          out_[i].value = value;
          return;
        }
      }
      out_.push_back({key, value});
      return;
    }
    if (index_.empty()) {
      for (size_t i = first_; i < out_.size(); ++i)
        index_.emplace(to_sv(out_[i].key), i);
    }
    const auto [it, inserted] = index_.emplace(to_sv(key), out_.size());
    if (!inserted) {
      out_[it->second].value = value;
      return;
    }
    out_.push_back({key, value});
  }

 private:
  static constexpr size_t kScanLimit = 16;
  std::vector<hami_kv>& out_;
  const size_t first_;
  std::unordered_map<std::string_view, size_t> index_;
};

// Where a model's strings come from: copies in its arena, or (borrowing)
// the document's own strings.
struct Strings {
  StringArena& arena;
  bool borrow;

  std::string_view keep(std::string_view text) const { return borrow ? text : arena.store(text); }
  // `text` may point into a temporary buffer.
  std::string_view copy(std::string_view text) const { return arena.store(text); }
};

hami_str as_str(std::string_view text) {
  return {text.data(), text.size()};
}

// Appends the entries of `map` (parent[key]; nullptr: absent) to `out`
// and returns where they lie in it.
std::pair<size_t, size_t> read_map(const Strings& strings, const Value* map, std::string_view key,
                                   const JsonPath& at, std::vector<hami_kv>& out, bool quantities) {
  const size_t first = out.size();
  if (map == nullptr)
    return {first, first};
  const JsonPath map_at(at, key);
  KvAppender appender(out, first);
  for (const auto& entry : map->GetObject()) {
    const std::string_view entry_key = json::view_of(entry.name);
    std::string_view value;
    json::QuantityBuffer buffer;
    if (quantities) {
      value = json::quantity(entry.value, JsonPath(map_at, entry_key), buffer);
    } else {
      if (!entry.value.IsString()) {
        json::wrong_type(JsonPath(map_at, entry_key), "a string", entry.value);
      }
      value = json::view_of(entry.value);
    }
    // A number's text is rendered into `buffer`, not the document's.
    appender.append(as_str(strings.keep(entry_key)),
                    as_str(entry.value.IsNumber() ? strings.copy(value) : strings.keep(value)));
  }
  return {first, out.size()};
}

// What an owning model copies into its arena from these maps: every key
// and string value, a number's text counted at the most it can take.
size_t map_bytes(std::initializer_list<const Value*> maps) {
  size_t bytes = 0;
  for (const Value* map : maps) {
    if (map == nullptr)
      continue;
    for (const auto& entry : map->GetObject()) {
      bytes += entry.name.GetStringLength();
      if (entry.value.IsString())
        bytes += entry.value.GetStringLength();
      else if (entry.value.IsNumber())
        bytes += sizeof(json::QuantityBuffer::bytes);
    }
  }
  return bytes;
}

std::optional<std::string_view> find(std::span<const hami_kv> list, std::string_view key) {
  for (const hami_kv& kv : list) {
    if (to_sv(kv.key) == key)
      return to_sv(kv.value);
  }
  return std::nullopt;
}

}  // namespace

NodeModel::NodeModel(const rapidjson::Value& node) : NodeModel(node, false) {}

NodeModel::NodeModel(const rapidjson::Value& node, Borrowing) : NodeModel(node, true) {}

NodeModel::NodeModel(const rapidjson::Value& node, bool borrow) : s_(std::make_unique<Storage>()) {
  const JsonPath root;
  if (!node.IsObject())
    json::wrong_type(root, "a Node object", node);
  const Value* metadata = json::optional_object(node, "metadata", root);
  if (metadata == nullptr)
    throw ObjectError("/metadata", "is required");
  const JsonPath meta_at(root, "metadata");
  const std::string_view name = json::optional_string(*metadata, "name", meta_at).value_or("");
  if (name.empty())
    throw ObjectError("/metadata/name", "is required");
  Storage& s = *s_;
  const Strings strings{s.arena, borrow};
  const std::string_view uid = json::optional_string(*metadata, "uid", meta_at).value_or("");
  const std::string_view resource_version =
      json::optional_string(*metadata, "resourceVersion", meta_at).value_or("");
  const Value* annotations = json::optional_object(*metadata, "annotations", meta_at);
  const Value* labels = json::optional_object(*metadata, "labels", meta_at);
  const Value* status = json::optional_object(node, "status", root);
  const JsonPath status_at(root, "status");
  const Value* allocatable =
      status == nullptr ? nullptr : json::optional_object(*status, "allocatable", status_at);
  const Value* capacity =
      status == nullptr ? nullptr : json::optional_object(*status, "capacity", status_at);
  // One block of the size the copies need: models are kept for as long as
  // their node (cluster caches, the extender's node cache), and blocks of
  // the arena's default size left a third of each unused.
  if (!borrow) {
    s.arena.reserve(name.size() + uid.size() + resource_version.size() +
                    map_bytes({annotations, labels, allocatable, capacity}));
  }
  s.name = strings.keep(name);
  s.uid = strings.keep(uid);
  s.resource_version = strings.keep(resource_version);
  size_t entries = 0;
  for (const Value* map : {annotations, labels, allocatable, capacity})
    entries += map == nullptr ? 0 : map->MemberCount();
  s.entries.reserve(entries);
  // Offsets first, spans after: the vector is filled before any is taken.
  const auto a = read_map(strings, annotations, "annotations", meta_at, s.entries, false);
  const auto l = read_map(strings, labels, "labels", meta_at, s.entries, false);
  const auto al = read_map(strings, allocatable, "allocatable", status_at, s.entries, true);
  const auto c = read_map(strings, capacity, "capacity", status_at, s.entries, true);
  const auto span_of = [&s](std::pair<size_t, size_t> range) {
    return std::span<const hami_kv>(s.entries).subspan(range.first, range.second - range.first);
  };
  s.annotations = span_of(a);
  s.labels = span_of(l);
  s.allocatable = span_of(al);
  s.capacity = span_of(c);
  s.annotation_hashes.reserve(s.annotations.size());
  for (const hami_kv& kv : s.annotations) {
    uint64_t h = 0;
    platform::hash_append(h, to_sv(kv.key));
    platform::hash_append(h, to_sv(kv.value));
    s.annotation_hashes.push_back(h);
  }

  hami_node_view& v = s.view;
  v.struct_size = sizeof(hami_node_view);
  v.name = {s.name.data(), s.name.size()};
  v.annotations = s.annotations.data();
  v.annotations_len = s.annotations.size();
  v.labels = s.labels.data();
  v.labels_len = s.labels.size();
  v.allocatable = s.allocatable.data();
  v.allocatable_len = s.allocatable.size();
  v.capacity = s.capacity.data();
  v.capacity_len = s.capacity.size();
}

NodeModel::NodeModel(NodeModel&&) noexcept = default;
NodeModel& NodeModel::operator=(NodeModel&&) noexcept = default;
NodeModel::~NodeModel() = default;

const hami_node_view& NodeModel::view() const {
  return s_->view;
}
std::string_view NodeModel::name() const {
  return s_->name;
}
std::string_view NodeModel::uid() const {
  return s_->uid;
}
std::string_view NodeModel::resource_version() const {
  return s_->resource_version;
}

std::span<const uint64_t> NodeModel::annotation_hashes() const {
  return s_->annotation_hashes;
}

std::optional<std::string_view> NodeModel::annotation(std::string_view key) const {
  return find(s_->annotations, key);
}

std::optional<std::string_view> NodeModel::label(std::string_view key) const {
  return find(s_->labels, key);
}

std::span<const hami_kv> NodeModel::annotations() const {
  return s_->annotations;
}

}  // namespace hami::k8s
