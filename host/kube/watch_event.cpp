#include "kube/watch_event.hpp"

#include <rapidjson/error/en.h>

#include "cluster/revision.hpp"
#include "k8s/json_read.hpp"

namespace hami::kube {

namespace {

using rapidjson::Value;

const Value* member(const Value& object, std::string_view key) {
  if (!object.IsObject())
    return nullptr;
  const auto it = object.FindMember(Value(rapidjson::StringRef(key.data(), key.size())));
  return it == object.MemberEnd() ? nullptr : &it->value;
}

}  // namespace

const Value& WatchEvent::object() const {
  return *member(document, "object");
}

WatchEvent parse_watch_event(std::string_view line) {
  WatchEvent event;
  event.document.Parse(line.data(), line.size());
  if (event.document.HasParseError()) {
    throw WatchEventError("watch event is not JSON (offset " +
                          std::to_string(event.document.GetErrorOffset()) +
                          "): " + rapidjson::GetParseError_En(event.document.GetParseError()));
  }
  if (!event.document.IsObject())
    throw WatchEventError("watch event is not a JSON object");
  const std::string type = k8s::json::string_or_empty(event.document, "type");
  if (type == "ADDED") {
    event.type = WatchEventType::Added;
  } else if (type == "MODIFIED") {
    event.type = WatchEventType::Modified;
  } else if (type == "DELETED") {
    event.type = WatchEventType::Deleted;
  } else if (type == "BOOKMARK") {
    event.type = WatchEventType::Bookmark;
  } else if (type == "ERROR") {
    event.type = WatchEventType::Error;
  } else {
    throw WatchEventError("watch event has an unknown type \"" + type + "\"");
  }
  const Value* object = member(event.document, "object");
  if (object == nullptr || !object->IsObject())
    throw WatchEventError("watch event " + type + " has no object");
  if (event.type == WatchEventType::Error) {
    if (const Value* code = member(*object, "code"); code != nullptr && code->IsInt())
      event.code = code->GetInt();
    event.reason = k8s::json::string_or_empty(*object, "reason");
    event.message = k8s::json::string_or_empty(*object, "message");
    return event;
  }
  event.resource_version = resource_version_of(*object);
  if (event.type != WatchEventType::Bookmark && object_key(*object).empty())
    throw WatchEventError("watch event " + type + " object has no metadata.name");
  if (event.type == WatchEventType::Bookmark && event.resource_version.empty())
    throw WatchEventError("watch event BOOKMARK has no metadata.resourceVersion");
  return event;
}

std::string object_key(const Value& object) {
  const Value* meta = member(object, "metadata");
  if (meta == nullptr)
    return {};
  std::string name = k8s::json::string_or_empty(*meta, "name");
  if (name.empty())
    return {};
  std::string ns = k8s::json::string_or_empty(*meta, "namespace");
  if (ns.empty())
    return name;
  ns += '/';
  ns += name;
  return ns;
}

std::pair<std::string, std::string> split_object_key(std::string_view key) {
  const size_t slash = key.find('/');
  if (slash == std::string_view::npos)
    return {std::string(), std::string(key)};
  return {std::string(key.substr(0, slash)), std::string(key.substr(slash + 1))};
}

std::string resource_version_of(const Value& object) {
  const Value* meta = member(object, "metadata");
  return meta != nullptr ? k8s::json::string_or_empty(*meta, "resourceVersion") : std::string();
}

std::string uid_of(const Value& object) {
  const Value* meta = member(object, "metadata");
  return meta != nullptr ? k8s::json::string_or_empty(*meta, "uid") : std::string();
}

bool resource_version_newer(std::string_view candidate, std::string_view stored) {
  const auto c = cluster::revision_of(candidate);
  const auto s = cluster::revision_of(stored);
  if (c && s)
    return *c > *s;
  return candidate != stored;
}

bool provably_newer(std::string_view stored, std::string_view other) {
  const auto s = cluster::revision_of(stored);
  const auto o = cluster::revision_of(other);
  return s && o && *s > *o;
}

}  // namespace hami::kube
