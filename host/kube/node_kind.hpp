// NodeKind: how the Kubernetes caches store nodes (ObjectTable<NodeKind>):
// by name, as the NodeModel the scheduler reads. A node the model rejects
// (one without a name among them) is left out.
#pragma once

#include <rapidjson/document.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "cluster/change_feed.hpp"
#include "cluster/object_records.hpp"
#include "kube/object_table.hpp"
#include "kube/object_trim.hpp"

namespace hami::kube {

struct NodeKind : DefaultKindRules {
  static constexpr std::string_view kName = "Node";
  using Key = std::string;
  using Record = std::shared_ptr<const k8s::NodeModel>;
  using Stored = Record;

  static rapidjson::Value trim(const rapidjson::Value& node, JsonAllocator& a) {
    return trim_node(node, a);
  }
  static Key key(std::string_view object_key) { return std::string(object_key); }
  static std::optional<std::pair<Key, Stored>> build(const rapidjson::Document& node) {
    Stored model = cluster::make_node_model(node);
    Key name(model->name());
    return std::pair{std::move(name), std::move(model)};
  }
  static std::string_view resource_version(const Stored& node) { return node->resource_version(); }
  static const Record& record(const Stored& node) { return node; }
  static void upserted(const Stored*, const Stored& now, cluster::WatcherNotes& notes) {
    notes.node_upserted(now);
  }
  static void deleted(const Key& name, const Stored&, cluster::WatcherNotes& notes) {
    notes.node_deleted(name);
  }
};

}  // namespace hami::kube
