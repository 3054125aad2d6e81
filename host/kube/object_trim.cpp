#include "kube/object_trim.hpp"

#include <initializer_list>
#include <string_view>

namespace hami::kube {

namespace {

using rapidjson::Value;
using Allocator = rapidjson::Document::AllocatorType;

const Value* member(const Value& object, std::string_view key) {
  if (!object.IsObject())
    return nullptr;
  const auto it = object.FindMember(Value(rapidjson::StringRef(key.data(), key.size())));
  return it == object.MemberEnd() ? nullptr : &it->value;
}

void add(Value& to, std::string_view key, Value value, Allocator& a) {
  to.AddMember(Value(key.data(), static_cast<rapidjson::SizeType>(key.size()), a), value, a);
}

// Copies the listed members of `from` (when present) verbatim into `to`.
void copy_members(const Value& from, Value& to, std::initializer_list<std::string_view> keys,
                  Allocator& a) {
  for (const std::string_view key : keys) {
    if (const Value* v = member(from, key))
      add(to, key, Value(*v, a), a);
  }
}

// Applies `trim` to member `key` of `from` when it is an object (the result
// goes to `to`); a non-object value is copied verbatim.
template <typename Trim>
void nested(const Value& from, Value& to, std::string_view key, Allocator& a, Trim trim) {
  const Value* v = member(from, key);
  if (v == nullptr)
    return;
  if (!v->IsObject()) {
    add(to, key, Value(*v, a), a);
    return;
  }
  Value out(rapidjson::kObjectType);
  trim(*v, out);
  add(to, key, std::move(out), a);
}

// Same for an array member whose items are trimmed one by one.
template <typename Trim>
void nested_array(const Value& from, Value& to, std::string_view key, Allocator& a, Trim trim) {
  const Value* v = member(from, key);
  if (v == nullptr)
    return;
  if (!v->IsArray()) {
    add(to, key, Value(*v, a), a);
    return;
  }
  Value out(rapidjson::kArrayType);
  out.Reserve(v->Size(), a);
  for (const Value& item : v->GetArray()) {
    if (!item.IsObject()) {
      out.PushBack(Value(item, a), a);
      continue;
    }
    Value trimmed(rapidjson::kObjectType);
    trim(item, trimmed);
    out.PushBack(std::move(trimmed), a);
  }
  add(to, key, std::move(out), a);
}

}  // namespace

Value trim_pod(const Value& pod, Allocator& a) {
  if (!pod.IsObject())
    return Value(pod, a);
  Value doc(rapidjson::kObjectType);
  nested(pod, doc, "metadata", a, [&](const Value& from, Value& to) {
    copy_members(from, to,
                 {"name", "namespace", "uid", "resourceVersion", "deletionTimestamp", "annotations",
                  "labels"},
                 a);
  });
  const auto container = [&](const Value& from, Value& to) {
    copy_members(from, to, {"name", "restartPolicy"}, a);
    nested(from, to, "securityContext", a,
           [&](const Value& f, Value& t) { copy_members(f, t, {"privileged"}, a); });
    nested(from, to, "resources", a, [&](const Value& f, Value& t) {
      copy_members(f, t, {"limits", "requests"}, a);
    });
  };
  nested(pod, doc, "spec", a, [&](const Value& from, Value& to) {
    copy_members(from, to, {"schedulerName", "nodeName", "runtimeClassName", "priority"}, a);
    nested(from, to, "schedulingGroup", a,
           [&](const Value& f, Value& t) { copy_members(f, t, {"podGroupName"}, a); });
    nested_array(from, to, "initContainers", a, container);
    nested_array(from, to, "containers", a, container);
  });
  nested(pod, doc, "status", a, [&](const Value& from, Value& to) {
    copy_members(from, to, {"phase", "startTime"}, a);
    nested_array(from, to, "initContainerStatuses", a, [&](const Value& f, Value& t) {
      nested(f, t, "state", a, [&](const Value& sf, Value& st) {
        nested(sf, st, "terminated", a,
               [&](const Value& tf, Value& tt) { copy_members(tf, tt, {"exitCode"}, a); });
      });
    });
  });
  return doc;
}

Value trim_node(const Value& node, Allocator& a) {
  if (!node.IsObject())
    return Value(node, a);
  Value doc(rapidjson::kObjectType);
  nested(node, doc, "metadata", a, [&](const Value& from, Value& to) {
    copy_members(from, to, {"name", "uid", "resourceVersion", "annotations", "labels"}, a);
  });
  nested(node, doc, "status", a, [&](const Value& from, Value& to) {
    copy_members(from, to, {"allocatable", "capacity"}, a);
  });
  return doc;
}

Value trim_quota(const Value& quota, Allocator& a) {
  if (!quota.IsObject())
    return Value(quota, a);
  Value doc(rapidjson::kObjectType);
  nested(quota, doc, "metadata", a, [&](const Value& from, Value& to) {
    copy_members(from, to, {"name", "namespace", "resourceVersion"}, a);
  });
  nested(quota, doc, "spec", a,
         [&](const Value& from, Value& to) { copy_members(from, to, {"hard"}, a); });
  return doc;
}

Value trim_namespace(const Value& namespace_object, Allocator& a) {
  if (!namespace_object.IsObject())
    return Value(namespace_object, a);
  Value doc(rapidjson::kObjectType);
  nested(namespace_object, doc, "metadata", a, [&](const Value& from, Value& to) {
    copy_members(from, to, {"name", "resourceVersion", "labels"}, a);
  });
  return doc;
}

}  // namespace hami::kube
