#include "ops/live_snapshot.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <array>
#include <string_view>

#include "k8s/json_read.hpp"
#include "kube/object_trim.hpp"
#include "ops/snapshot_anonymize.hpp"

namespace hami::ops {

namespace {

using rapidjson::Value;

struct ListedKind {
  std::string_view path;
  std::string_view kind;
  Value (*trim)(const Value&, kube::JsonAllocator&);
};

constexpr std::array<ListedKind, 4> kKinds{{
    {"/api/v1/nodes", "Node", &kube::trim_node},
    {"/api/v1/pods", "Pod", &kube::trim_pod},
    {"/api/v1/resourcequotas", "ResourceQuota", &kube::trim_quota},
    {"/api/v1/namespaces", "Namespace", &kube::trim_namespace},
}};

// Appends every item of `kind` to `items`, trimmed, with kind and apiVersion.
void list_kind(kube::ApiClient& api, const ListedKind& kind, size_t page_size, Value& items,
               kube::JsonAllocator& a) {
  std::string continue_token;
  do {
    std::string query = std::string(kind.path) + "?limit=" + std::to_string(page_size);
    if (!continue_token.empty())
      query += "&continue=" + kube::query_escape(continue_token);
    const kube::ApiResponse reply = api.get(query);
    rapidjson::Document page;
    page.Parse(reply.body.data(), reply.body.size());
    if (page.HasParseError() || !page.IsObject())
      throw kube::ApiError(reply.status, "",
                           std::string(kind.path) + ": reply is not a JSON object");
    const Value* meta = k8s::json::member(page, "metadata");
    continue_token = meta != nullptr ? k8s::json::string_or_empty(*meta, "continue") : "";
    const Value* list = k8s::json::member(page, "items");
    if (list == nullptr || !list->IsArray())
      throw kube::ApiError(reply.status, "", std::string(kind.path) + ": reply has no items");
    for (const Value& item : list->GetArray()) {
      if (!item.IsObject())
        continue;
      Value trimmed = kind.trim(item, a);
      trimmed.RemoveMember("kind");
      trimmed.RemoveMember("apiVersion");
      Value object(rapidjson::kObjectType);
      object.AddMember("apiVersion", "v1", a);
      object.AddMember(
          "kind", Value(kind.kind.data(), static_cast<rapidjson::SizeType>(kind.kind.size()), a),
          a);
      for (auto& m : trimmed.GetObject())
        object.AddMember(m.name, m.value, a);
      items.PushBack(object, a);
    }
  } while (!continue_token.empty());
}

}  // namespace

std::string write_snapshot_list(const rapidjson::Value& items) {
  std::string out = "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[";
  bool first = true;
  for (const Value& item : items.GetArray()) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    item.Accept(writer);
    out += first ? "\n" : ",\n";
    out.append(buffer.GetString(), buffer.GetSize());
    first = false;
  }
  out += "\n]}\n";
  return out;
}

std::string read_live_snapshot(kube::ApiClient& api, const LiveSnapshotOptions& options) {
  rapidjson::Document doc(rapidjson::kArrayType);
  auto& a = doc.GetAllocator();
  for (const ListedKind& kind : kKinds)
    list_kind(api, kind, options.page_size == 0 ? 500 : options.page_size, doc, a);
  if (options.anonymize)
    anonymize_snapshot(doc, a);
  return write_snapshot_list(doc);
}

}  // namespace hami::ops
