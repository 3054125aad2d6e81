#include "k8s/node.hpp"

#include <string>

#include "k8s/json_path.hpp"
#include "k8s/json_read.hpp"
#include "k8s/object_error.hpp"

namespace hami::k8s {

using KvList = std::vector<std::pair<std::string, std::string>>;

struct NodeModel::Storage {
  std::string name;
  std::string uid;
  std::string resource_version;
  KvList annotations;
  KvList labels;
  KvList allocatable;
  KvList capacity;
  std::vector<hami_kv> annotation_views;
  std::vector<hami_kv> label_views;
  std::vector<hami_kv> allocatable_views;
  std::vector<hami_kv> capacity_views;
  hami_node_view view{};
};

namespace {

using rapidjson::Value;

// JSON allows repeated keys; Go keeps the last value, and the ABI promises
// unique keys, so a repeat replaces the earlier value in its first position.
void put(KvList& list, std::string_view key, std::string_view value) {
  for (auto& [k, v] : list) {
    if (k == key) {
      v.assign(value);
      return;
    }
  }
  list.emplace_back(std::string(key), std::string(value));
}

KvList string_map(const Value& parent, std::string_view key, const JsonPath& at) {
  KvList out;
  const Value* map = json::optional_object(parent, key, at);
  if (map == nullptr)
    return out;
  const JsonPath map_at(at, key);
  out.reserve(map->MemberCount());
  for (const auto& entry : map->GetObject()) {
    const std::string_view entry_key = json::view_of(entry.name);
    if (!entry.value.IsString()) {
      json::wrong_type(JsonPath(map_at, entry_key), "a string", entry.value);
    }
    put(out, entry_key, json::view_of(entry.value));
  }
  return out;
}

KvList quantity_map(const Value& parent, std::string_view key, const JsonPath& at) {
  KvList out;
  const Value* map = json::optional_object(parent, key, at);
  if (map == nullptr)
    return out;
  const JsonPath map_at(at, key);
  out.reserve(map->MemberCount());
  for (const auto& entry : map->GetObject()) {
    const std::string_view entry_key = json::view_of(entry.name);
    json::QuantityBuffer buffer;
    put(out, entry_key, json::quantity(entry.value, JsonPath(map_at, entry_key), buffer));
  }
  return out;
}

std::vector<hami_kv> kv_views(const KvList& list) {
  std::vector<hami_kv> views;
  views.reserve(list.size());
  for (const auto& [k, v] : list) {
    views.push_back(hami_kv{{k.data(), k.size()}, {v.data(), v.size()}});
  }
  return views;
}

std::optional<std::string_view> find(const KvList& list, std::string_view key) {
  for (const auto& [k, v] : list) {
    if (k == key)
      return std::string_view(v);
  }
  return std::nullopt;
}

}  // namespace

NodeModel::NodeModel(const rapidjson::Value& node) : s_(std::make_unique<Storage>()) {
  const JsonPath root;
  if (!node.IsObject())
    json::wrong_type(root, "a Node object", node);
  const Value* metadata = json::optional_object(node, "metadata", root);
  if (metadata == nullptr)
    throw ObjectError("/metadata", "is required");
  const JsonPath meta_at(root, "metadata");
  s_->name = json::optional_string(*metadata, "name", meta_at).value_or("");
  if (s_->name.empty())
    throw ObjectError("/metadata/name", "is required");
  s_->uid = json::optional_string(*metadata, "uid", meta_at).value_or("");
  s_->resource_version = json::optional_string(*metadata, "resourceVersion", meta_at).value_or("");
  s_->annotations = string_map(*metadata, "annotations", meta_at);
  s_->labels = string_map(*metadata, "labels", meta_at);
  if (const Value* status = json::optional_object(node, "status", root)) {
    const JsonPath status_at(root, "status");
    s_->allocatable = quantity_map(*status, "allocatable", status_at);
    s_->capacity = quantity_map(*status, "capacity", status_at);
  }

  // Views are built last, once the string vectors no longer change.
  s_->annotation_views = kv_views(s_->annotations);
  s_->label_views = kv_views(s_->labels);
  s_->allocatable_views = kv_views(s_->allocatable);
  s_->capacity_views = kv_views(s_->capacity);
  hami_node_view& v = s_->view;
  v.struct_size = sizeof(hami_node_view);
  v.name = {s_->name.data(), s_->name.size()};
  v.annotations = s_->annotation_views.data();
  v.annotations_len = s_->annotation_views.size();
  v.labels = s_->label_views.data();
  v.labels_len = s_->label_views.size();
  v.allocatable = s_->allocatable_views.data();
  v.allocatable_len = s_->allocatable_views.size();
  v.capacity = s_->capacity_views.data();
  v.capacity_len = s_->capacity_views.size();
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

const std::vector<std::pair<std::string, std::string>>& NodeModel::annotations() const {
  return s_->annotations;
}

}  // namespace hami::k8s
