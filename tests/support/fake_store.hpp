// The fake API server's object store: one store-wide revision as etcd, the
// objects of every kind, and the write history watches resume from. Not
// thread-safe: the server guards it with one mutex.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fake_json.hpp"
#include "fake_kinds.hpp"

namespace hami::testing::fake {

enum class EventType { added, modified, deleted };
std::string_view event_type_name(EventType type);

// One write. `object` is the object after the write (for a delete: the
// last state, stamped with the deletion's revision); `previous` the state
// before (null for an add).
struct HistoryEntry {
  uint64_t revision = 0;
  EventType type = EventType::added;
  const KindInfo* kind = nullptr;
  std::string key;
  std::shared_ptr<const Json> object;
  std::shared_ptr<const Json> previous;
};

class Store {
 public:
  explicit Store(size_t history_limit);

  uint64_t revision() const { return revision_; }
  // History holds every write after this revision: a watch may resume from
  // any resourceVersion >= compacted(), and so can list snapshots (etcd keeps
  // the revision it compacted at).
  uint64_t compacted() const { return compacted_; }

  // "ns/name" (cluster-scoped: "/name"), the order lists are returned in.
  static std::string key(std::string_view ns, std::string_view name);

  const Json* find(const KindInfo& kind, std::string_view ns, std::string_view name) const;
  // Current objects of a kind in key order.
  std::vector<std::shared_ptr<const Json>> all(const KindInfo& kind) const;
  // The objects of a kind as they were at `revision` (later writes undone),
  // in key order; nullopt when the history no longer reaches back.
  std::optional<std::vector<std::pair<std::string, std::shared_ptr<const Json>>>> at_revision(
      const KindInfo& kind, uint64_t revision) const;

  // Stores (adds or replaces) `object`, which must carry metadata.name and,
  // for namespaced kinds, metadata.namespace. Fills kind/apiVersion,
  // metadata.uid and creationTimestamp when missing, stamps the next
  // resourceVersion, records the write. Returns the stored object.
  std::shared_ptr<const Json> put(const KindInfo& kind, Json object);
  // Deletes; the returned object carries the deletion's resourceVersion.
  std::shared_ptr<const Json> erase(const KindInfo& kind, std::string_view ns,
                                    std::string_view name);

  // Drops the whole history (see compacted()).
  void compact();
  const std::deque<HistoryEntry>& history() const { return history_; }

 private:
  void record(HistoryEntry entry);

  size_t history_limit_;
  uint64_t revision_ = 1;
  uint64_t compacted_ = 0;
  // kind name → key → object
  std::map<std::string, std::map<std::string, std::shared_ptr<const Json>>, std::less<>> objects_;
  std::deque<HistoryEntry> history_;
};

// A random RFC 4122 version-4 UUID.
std::string random_uuid();
// Now as RFC 3339 UTC with seconds ("2026-07-20T09:30:11Z").
std::string now_rfc3339();

}  // namespace hami::testing::fake
