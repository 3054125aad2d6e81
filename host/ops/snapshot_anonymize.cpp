#include "ops/snapshot_anonymize.hpp"

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "k8s/json_read.hpp"
#include "kube/object_trim.hpp"

namespace hami::ops {

namespace {

using rapidjson::Value;
using Allocator = rapidjson::Document::AllocatorType;
using k8s::json::member;

constexpr std::string_view kNodeLock = "hami.io/mutex.lock";
constexpr std::string_view kPodGroupLabel = "scheduling.x-k8s.io/pod-group";

std::string_view text_of(const Value* v) {
  return v != nullptr && v->IsString() ? k8s::json::view_of(*v) : std::string_view{};
}

Value* mutable_member(Value& object, std::string_view key) {
  if (!object.IsObject())
    return nullptr;
  auto it = object.FindMember(Value(rapidjson::StringRef(key.data(), key.size())));
  return it == object.MemberEnd() || it->value.IsNull() ? nullptr : &it->value;
}

void set_string(Value& v, std::string_view text, Allocator& a) {
  v.SetString(text.data(), static_cast<rapidjson::SizeType>(text.size()), a);
}

// Original → new name, numbered in sorted order.
class Renames {
 public:
  void add(std::string_view name) {
    if (!name.empty())
      names_.emplace(name, std::string());
  }
  void number(std::string_view prefix) {
    size_t i = 0;
    for (auto& [from, to] : names_)
      to = std::string(prefix) + std::to_string(++i);
  }
  const std::string* find(std::string_view name) const {
    auto it = names_.find(name);
    return it == names_.end() ? nullptr : &it->second;
  }
  const std::map<std::string, std::string, std::less<>>& all() const { return names_; }

 private:
  std::map<std::string, std::string, std::less<>> names_;
};

struct Names {
  Renames namespaces, nodes, quotas, groups;
  std::map<std::pair<std::string, std::string>, std::string> pods;
  std::set<std::string, std::less<>> originals;  // every original name, for the leak check
};

bool word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.';
}

// Whether `text` holds an original name as a whole word.
bool leaks(std::string_view text, const Names& names) {
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && !word_char(text[i]))
      ++i;
    size_t end = i;
    while (end < text.size() && word_char(text[end]))
      ++end;
    if (end > i && names.originals.contains(text.substr(i, end - i)))
      return true;
    i = end;
  }
  return false;
}

std::string_view object_kind(const Value& o) {
  return text_of(member(o, "kind"));
}

void collect(const Value& items, Names& names) {
  std::set<std::pair<std::string, std::string>> pods;
  for (const Value& o : items.GetArray()) {
    const Value* meta = member(o, "metadata");
    if (meta == nullptr || !meta->IsObject())
      continue;
    const std::string_view kind = object_kind(o);
    const std::string_view name = text_of(member(*meta, "name"));
    const std::string_view ns = text_of(member(*meta, "namespace"));
    names.namespaces.add(ns);
    if (kind == "Namespace") {
      names.namespaces.add(name);
    } else if (kind == "Node") {
      names.nodes.add(name);
      if (const Value* ann = member(*meta, "annotations"); ann != nullptr && ann->IsObject()) {
        // "<time>,<namespace>,<pod>"
        const std::string_view lock = text_of(member(*ann, kNodeLock));
        const size_t c1 = lock.find(',');
        const size_t c2 = c1 == std::string_view::npos ? c1 : lock.find(',', c1 + 1);
        if (c2 != std::string_view::npos) {
          const std::string_view lock_ns = lock.substr(c1 + 1, c2 - c1 - 1);
          names.namespaces.add(lock_ns);
          pods.emplace(lock_ns, lock.substr(c2 + 1));
        }
      }
    } else if (kind == "ResourceQuota") {
      names.quotas.add(name);
    } else if (kind == "Pod") {
      pods.emplace(ns, name);
      if (const Value* spec = member(o, "spec")) {
        names.nodes.add(text_of(member(*spec, "nodeName")));
        if (const Value* group = member(*spec, "schedulingGroup"))
          names.groups.add(text_of(member(*group, "podGroupName")));
      }
      if (const Value* labels = member(*meta, "labels"))
        names.groups.add(text_of(member(*labels, kPodGroupLabel)));
    }
  }
  names.namespaces.number("ns-");
  names.nodes.number("node-");
  names.quotas.number("quota-");
  names.groups.number("group-");
  size_t i = 0;
  for (const auto& key : pods) {
    names.pods[key] = "pod-" + std::to_string(++i);
    names.originals.insert(key.second);
  }
  for (const Renames* r : {&names.namespaces, &names.nodes, &names.quotas, &names.groups}) {
    for (const auto& [from, to] : r->all())
      names.originals.insert(from);
  }
}

const std::string* renamed_value(std::string_view value, const Names& names) {
  for (const Renames* r : {&names.namespaces, &names.nodes, &names.groups}) {
    if (const std::string* to = r->find(value))
      return to;
  }
  return nullptr;
}

// Labels or annotations: exact names renamed, the node lock rewritten,
// anything still naming an original dropped.
void rewrite_map(Value& map, const Names& names, Allocator& a) {
  if (!map.IsObject())
    return;
  std::vector<std::string> drop;
  for (auto& m : map.GetObject()) {
    const std::string_view key = k8s::json::view_of(m.name);
    if (!m.value.IsString())
      continue;
    const std::string_view value = k8s::json::view_of(m.value);
    if (key == kNodeLock) {
      const size_t c1 = value.find(',');
      const size_t c2 = c1 == std::string_view::npos ? c1 : value.find(',', c1 + 1);
      if (c2 != std::string_view::npos) {
        const std::string ns(value.substr(c1 + 1, c2 - c1 - 1));
        const std::string pod(value.substr(c2 + 1));
        const std::string* new_ns = names.namespaces.find(ns);
        auto p = names.pods.find({ns, pod});
        if (new_ns != nullptr && p != names.pods.end()) {
          set_string(m.value, std::string(value.substr(0, c1)) + "," + *new_ns + "," + p->second,
                     a);
        }
      }
    } else if (const std::string* to = renamed_value(value, names)) {
      set_string(m.value, *to, a);
    }
    if (leaks(key, names) || leaks(k8s::json::view_of(m.value), names))
      drop.emplace_back(key);
  }
  for (const std::string& key : drop)
    map.RemoveMember(Value(rapidjson::StringRef(key.data(), key.size())));
}

void rename_member(Value& object, std::string_view key, const Renames& renames, Allocator& a) {
  if (Value* v = mutable_member(object, key); v != nullptr && v->IsString()) {
    if (const std::string* to = renames.find(k8s::json::view_of(*v)))
      set_string(*v, *to, a);
  }
}

void rename_containers(Value& spec, Allocator& a) {
  size_t j = 0;
  for (std::string_view list : {"initContainers", "containers"}) {
    Value* containers = mutable_member(spec, list);
    if (containers == nullptr || !containers->IsArray())
      continue;
    for (Value& c : containers->GetArray()) {
      if (Value* name = mutable_member(c, "name"); name != nullptr && name->IsString())
        set_string(*name, "c" + std::to_string(j), a);
      ++j;
    }
  }
}

void rewrite(Value& o, const Names& names, Allocator& a) {
  Value* meta = mutable_member(o, "metadata");
  if (meta == nullptr || !meta->IsObject())
    return;
  const std::string_view kind = object_kind(o);
  if (kind == "Pod") {
    const std::string ns(text_of(member(*meta, "namespace")));
    const std::string name(text_of(member(*meta, "name")));
    if (auto p = names.pods.find({ns, name}); p != names.pods.end()) {
      if (Value* v = mutable_member(*meta, "name"))
        set_string(*v, p->second, a);
    }
    if (Value* spec = mutable_member(o, "spec")) {
      rename_member(*spec, "nodeName", names.nodes, a);
      if (Value* group = mutable_member(*spec, "schedulingGroup"))
        rename_member(*group, "podGroupName", names.groups, a);
      rename_containers(*spec, a);
    }
  } else if (kind == "Node") {
    rename_member(*meta, "name", names.nodes, a);
  } else if (kind == "Namespace") {
    rename_member(*meta, "name", names.namespaces, a);
  } else if (kind == "ResourceQuota") {
    rename_member(*meta, "name", names.quotas, a);
  }
  rename_member(*meta, "namespace", names.namespaces, a);
  meta->RemoveMember("uid");
  for (std::string_view key : {"labels", "annotations"}) {
    if (Value* map = mutable_member(*meta, key))
      rewrite_map(*map, names, a);
  }
}

// Each object cut down to what the scheduler reads (kube/object_trim.hpp),
// with apiVersion v1 and its kind; objects of other kinds are dropped.
// Whatever else an object carries (container images, commands, env,
// volumes, service accounts, ...) may name the organisation.
void keep_only_scheduled_fields(Value& items, Allocator& a) {
  Value kept(rapidjson::kArrayType);
  kept.Reserve(items.Size(), a);
  for (const Value& o : items.GetArray()) {
    const std::string_view kind = object_kind(o);
    Value (*trim)(const Value&, Allocator&) = kind == "Pod"             ? &kube::trim_pod
                                              : kind == "Node"          ? &kube::trim_node
                                              : kind == "ResourceQuota" ? &kube::trim_quota
                                              : kind == "Namespace"     ? &kube::trim_namespace
                                                                        : nullptr;
    if (trim == nullptr || !o.IsObject())
      continue;
    Value trimmed = trim(o, a);
    Value object(rapidjson::kObjectType);
    object.AddMember("apiVersion", "v1", a);
    object.AddMember("kind", Value(kind.data(), static_cast<rapidjson::SizeType>(kind.size()), a),
                     a);
    for (auto& m : trimmed.GetObject())
      object.AddMember(m.name, m.value, a);
    kept.PushBack(object, a);
  }
  items = std::move(kept);
}

}  // namespace

void anonymize_snapshot(rapidjson::Value& items, Allocator& a) {
  if (!items.IsArray())
    return;
  keep_only_scheduled_fields(items, a);
  Names names;
  collect(items, names);
  for (Value& o : items.GetArray())
    rewrite(o, names, a);
}

}  // namespace hami::ops
