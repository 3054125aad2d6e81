// NamespaceKind: how the Kubernetes caches store Namespaces
// (ObjectTable<NamespaceKind>): by name, as the record of their labels.
// Watchers hear nothing of them: ClusterWatcher has no namespace events.
#pragma once

#include <rapidjson/document.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "cluster/change_feed.hpp"
#include "cluster/object_records.hpp"
#include "kube/object_table.hpp"
#include "kube/object_trim.hpp"
#include "kube/watch_event.hpp"

namespace hami::kube {

struct NamespaceKind : DefaultKindRules {
  static constexpr std::string_view kName = "Namespace";
  using Key = std::string;
  using Record = cluster::NamespaceRecord;
  using Stored = VersionedRecord<Record>;

  static rapidjson::Value trim(const rapidjson::Value& namespace_object, JsonAllocator& a) {
    return trim_namespace(namespace_object, a);
  }
  static Key key(std::string_view object_key) { return std::string(object_key); }
  // nullopt for a namespace without a name.
  static std::optional<std::pair<Key, Stored>> build(const rapidjson::Document& namespace_object) {
    Record record = cluster::make_namespace_record(namespace_object);
    if (record.name.empty())
      return std::nullopt;
    Key name = record.name;
    return std::pair{std::move(name),
                     Stored{std::move(record), resource_version_of(namespace_object)}};
  }
  static std::string_view resource_version(const Stored& namespace_object) {
    return namespace_object.resource_version;
  }
  static const Record& record(const Stored& namespace_object) { return namespace_object.record; }
  static void upserted(const Stored*, const Stored&, cluster::WatcherNotes&) {}
  static void deleted(const Key&, const Stored&, cluster::WatcherNotes&) {}
};

}  // namespace hami::kube
