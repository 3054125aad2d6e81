// QuotaKind: how the Kubernetes caches store ResourceQuotas
// (ObjectTable<QuotaKind>): by namespace/name (a quota without a namespace
// is in "default"), as the record of its spec.hard. Watchers hear one
// quotas_changed for a change of any number of quotas.
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

struct QuotaKind : DefaultKindRules {
  static constexpr std::string_view kName = "ResourceQuota";
  using Key = std::pair<std::string, std::string>;  // namespace, name
  using Record = cluster::ResourceQuotaRecord;
  using Stored = VersionedRecord<Record>;

  static rapidjson::Value trim(const rapidjson::Value& quota, JsonAllocator& a) {
    return trim_quota(quota, a);
  }
  static Key key(std::string_view object_key) {
    auto key = split_object_key(object_key);
    if (key.first.empty())
      key.first = "default";
    return key;
  }
  // nullopt for a quota without a name.
  static std::optional<std::pair<Key, Stored>> build(const rapidjson::Document& quota) {
    Record record = cluster::make_quota_record(quota);
    if (record.name.empty())
      return std::nullopt;
    Key key{record.namespace_, record.name};
    return std::pair{std::move(key), Stored{std::move(record), resource_version_of(quota)}};
  }
  static std::string_view resource_version(const Stored& quota) { return quota.resource_version; }
  static const Record& record(const Stored& quota) { return quota.record; }
  static void upserted(const Stored*, const Stored&, cluster::WatcherNotes& notes) {
    notes.quotas_changed();
  }
  static void deleted(const Key&, const Stored&, cluster::WatcherNotes& notes) {
    notes.quotas_changed();
  }
};

}  // namespace hami::kube
