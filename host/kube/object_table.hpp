// ObjectTable<Kind>: the stored objects of one kind in the Kubernetes
// caches (KubeClusterStore), and the rules every kind follows.
//
// Staleness rule: an object whose resourceVersion is not newer than the
// stored one (resource_version_newer: integers compared as integers) is
// ignored, so a watch event that lags behind a write reply already stored
// cannot roll the cache back. The same holds for a deletion: a DELETED
// event, or a key a relist no longer lists, is ignored when what is stored
// is provably newer (the object was re-created meanwhile, or a write reply
// stored it after the list was taken). Revisions are the store-wide etcd
// ones, so the rule holds across objects of one name.
//
// Objects are trimmed (Kind::trim, kube/object_trim.hpp) before anything is
// kept. An object the models reject (k8s::ObjectError) is logged and left
// out.
//
// What differs between kinds (the key, the record, what a change tells the
// watchers, rules of their own) is declared by the kind: pod_kind.hpp,
// node_kind.hpp, quota_kind.hpp, namespace_kind.hpp, each a StoredKind.
//
// A table locks itself for each read and change. Changes add the watcher
// calls they owe to the WatcherNotes they are given; the caller runs them
// one at a time and delivers the notes (cluster::ChangeFeed).
#pragma once

#include <rapidjson/document.h>

#include <concepts>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cluster/change_feed.hpp"
#include "kube/object_trim.hpp"
#include "kube/reflector.hpp"

namespace hami::log {
class Logger;
}

namespace hami::kube {

// What a kind declares (every member is static):
//   kName          the kind, as logged for an object left out.
//   Key            what objects are stored by; Record, what reads return;
//                  Stored, what is kept of an object.
//   trim(o, a)     the trimmed copy of object `o`.
//   key(text)      the Key of an object_key (the text a relist lists as
//                  deleted).
//   build(doc)     the Key and Stored of a trimmed object, or nullopt to
//                  leave it out; throws k8s::ObjectError.
//   carry_over(doc, fresh, stored)
//                  keeps in `fresh` (built from `doc`, which it may change)
//                  what must survive from the version stored under its
//                  key; throws k8s::ObjectError.
//   resource_version(stored), record(stored)
//   deleted_by(stored, last_state)
//                  whether a DELETED event of `last_state` removes `stored`.
//   upserted(before, now, notes), deleted(key, stored, notes)
//                  the watcher calls a change owes (`before`: the object
//                  that was stored under the key, nullptr when none was).
template <typename K>
concept StoredKind = requires(std::string_view text, const rapidjson::Value& object,
                              rapidjson::Document& doc, typename K::Stored& fresh,
                              const typename K::Stored& stored, const typename K::Key& key,
                              cluster::WatcherNotes& notes) {
  { K::kName } -> std::convertible_to<std::string_view>;
  { K::trim(object, doc.GetAllocator()) } -> std::same_as<rapidjson::Value>;
  { K::key(text) } -> std::same_as<typename K::Key>;
  {
    K::build(std::as_const(doc))
    } -> std::same_as<std::optional<std::pair<typename K::Key, typename K::Stored>>>;
  K::carry_over(doc, fresh, stored);
  { K::resource_version(stored) } -> std::convertible_to<std::string_view>;
  { K::record(stored) } -> std::convertible_to<typename K::Record>;
  { K::deleted_by(stored, object) } -> std::same_as<bool>;
  K::upserted(&stored, stored, notes);
  K::deleted(key, stored, notes);
};

// The rules of a kind that has none of its own: nothing carries over from
// a stored version, and a deletion removes whatever its key holds.
struct DefaultKindRules {
  template <typename Stored>
  static void carry_over(rapidjson::Document&, Stored&, const Stored&) {}
  template <typename Stored>
  static bool deleted_by(const Stored&, const rapidjson::Value&) {
    return true;
  }
};

// What is kept of a kind whose record does not hold its resourceVersion.
template <typename Record>
struct VersionedRecord {
  Record record;
  std::string resource_version;
};

template <StoredKind Kind>
class ObjectTable {
 public:
  using Key = typename Kind::Key;
  using Stored = typename Kind::Stored;
  using Record = typename Kind::Record;

  explicit ObjectTable(const log::Logger* logger) : logger_(logger) {}

  // The record under `key` (anything std::map<Key> compares with), or a
  // default-constructed one (nullptr) when there is none.
  template <typename K>
  Record find(const K& key) const {
    std::lock_guard guard(mu_);
    const auto it = objects_.find(key);
    return it == objects_.end() ? Record() : Record(Kind::record(it->second));
  }

  // Every record, in key order.
  std::vector<Record> records() const;

  // Returns read(<the Stored under key, nullptr when none>), under the
  // table's lock.
  template <typename Read>
  auto read(const Key& key, Read&& read) const {
    std::lock_guard guard(mu_);
    const auto it = objects_.find(key);
    return std::forward<Read>(read)(it == objects_.end() ? nullptr : &it->second);
  }

  // Calls visit(stored) for every object in key order, under the lock.
  template <typename Visit>
  void for_each(Visit&& visit) const {
    std::lock_guard guard(mu_);
    for (const auto& [_, stored] : objects_)
      visit(stored);
  }

  // One object (full or trimmed), subject to the staleness rule unless
  // `force`. Returns whether it was stored.
  bool upsert(const rapidjson::Value& object, bool force, cluster::WatcherNotes& notes);
  // A DELETED event: the last state the server had.
  void remove(const rapidjson::Value& last_state, cluster::WatcherNotes& notes);
  // Removes what `key` holds, whatever its version.
  void erase(const Key& key, cluster::WatcherNotes& notes);
  // A relist: upserts what changed, removes the keys listed as deleted
  // (unless what is stored is newer than the list).
  void replace(const Relist& relist, cluster::WatcherNotes& notes);

 private:
  void rejected(const rapidjson::Value& object, const char* why) const;

  const log::Logger* logger_;
  mutable std::mutex mu_;
  std::map<Key, Stored, std::less<>> objects_;
};

}  // namespace hami::kube
