#include "k8s/node.hpp"

#include <string>
#include <unordered_map>

#include "k8s/json_path.hpp"
#include "k8s/json_read.hpp"
#include "k8s/object_error.hpp"
#include "k8s/string_arena.hpp"

namespace hami::k8s {

// Every string lives in one arena (a few blocks per node instead of one
// allocation per string: nodes arrive a thousand at a time in full-Nodes
// extender calls).
struct NodeModel::Storage {
  StringArena arena;
  std::string_view name;
  std::string_view uid;
  std::string_view resource_version;
  std::vector<hami_kv> annotations;
  std::vector<hami_kv> labels;
  std::vector<hami_kv> allocatable;
  std::vector<hami_kv> capacity;
  hami_node_view view{};
};

namespace {

using rapidjson::Value;

std::string_view sv(hami_str s) {
  return {s.ptr, s.len};
}

// JSON allows repeated keys; Go keeps the last value, and the ABI promises
// unique keys, so a repeat replaces the earlier value in its first position.
// Maps are small; larger ones get an index so a hostile object cannot make
// parsing quadratic.
class KvAppender {
 public:
  explicit KvAppender(std::vector<hami_kv>& out) : out_(out) {}

  void append(hami_str key, hami_str value) {
    if (out_.size() <= kScanLimit) {
      for (hami_kv& kv : out_) {
        if (sv(kv.key) == sv(key)) {
          kv.value = value;
          return;
        }
      }
      out_.push_back({key, value});
      return;
    }
    if (index_.empty()) {
      for (size_t i = 0; i < out_.size(); ++i)
        index_.emplace(sv(out_[i].key), i);
    }
    const auto [it, inserted] = index_.emplace(sv(key), out_.size());
    if (!inserted) {
      out_[it->second].value = value;
      return;
    }
    out_.push_back({key, value});
  }

 private:
  static constexpr size_t kScanLimit = 16;
  std::vector<hami_kv>& out_;
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

void read_map(const Strings& strings, const Value& parent, std::string_view key, const JsonPath& at,
              std::vector<hami_kv>& out, bool quantities) {
  const Value* map = json::optional_object(parent, key, at);
  if (map == nullptr)
    return;
  const JsonPath map_at(at, key);
  out.reserve(map->MemberCount());
  KvAppender appender(out);
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
}

std::optional<std::string_view> find(const std::vector<hami_kv>& list, std::string_view key) {
  for (const hami_kv& kv : list) {
    if (sv(kv.key) == key)
      return sv(kv.value);
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
  s.name = strings.keep(name);
  s.uid = strings.keep(json::optional_string(*metadata, "uid", meta_at).value_or(""));
  s.resource_version =
      strings.keep(json::optional_string(*metadata, "resourceVersion", meta_at).value_or(""));
  read_map(strings, *metadata, "annotations", meta_at, s.annotations, false);
  read_map(strings, *metadata, "labels", meta_at, s.labels, false);
  if (const Value* status = json::optional_object(node, "status", root)) {
    const JsonPath status_at(root, "status");
    read_map(strings, *status, "allocatable", status_at, s.allocatable, true);
    read_map(strings, *status, "capacity", status_at, s.capacity, true);
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
