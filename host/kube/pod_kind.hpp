// PodKind: how the Kubernetes caches store pods (ObjectTable<PodKind>).
//
// Uid rule: pods are stored by namespace/name, but a name may come to hold
// a new pod whose deletion of the old one was never seen (a relist after a
// dropped watch or 410, an ADDED/MODIFIED event or a write reply carrying
// another uid). Watchers then get pod_deleted(<old record>) before
// pod_upserted(<new record>). A DELETED event removes only the uid it
// names. A relist deletion says no pod of that name existed at the list's
// revision: it removes the stored pod whatever its uid, unless that is
// newer than the list (a write reply stored a pod created after it).
//
// Binding rule: spec.nodeName is immutable once set, so an update of the
// same pod (same uid) without it — older than a binding stored at once by
// KubeClusterStore::mark_bound — keeps the stored node name instead of
// unbinding the pod. A pod of a new uid reads with its own spec.nodeName (a
// re-created pod is pending until it is bound itself).
//
// Only a pending pod's text is kept: mark_bound rebuilds the pod from it,
// and a bound pod is never bound again. With thousands of running pods
// these texts were most of what the store held.
#pragma once

#include <rapidjson/document.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "cluster/change_feed.hpp"
#include "kube/object_trim.hpp"

namespace hami::kube {

struct PodKind {
  static constexpr std::string_view kName = "Pod";
  using Key = std::pair<std::string, std::string>;  // namespace, name
  using Record = std::shared_ptr<const cluster::PodRecord>;
  struct Stored {
    Record record;
    // The trimmed object, compact, while the pod is pending; empty once it
    // is bound.
    std::string json;
  };

  static rapidjson::Value trim(const rapidjson::Value& pod, JsonAllocator& a) {
    return trim_pod(pod, a);
  }
  static Key key(std::string_view object_key);
  static std::optional<std::pair<Key, Stored>> build(const rapidjson::Document& pod);
  // The binding rule.
  static void carry_over(rapidjson::Document& pod, Stored& fresh, const Stored& stored);
  static std::string_view resource_version(const Stored& pod) {
    return pod.record->resource_version;
  }
  static const Record& record(const Stored& pod) { return pod.record; }
  // The uid rule: a DELETED event of another uid is the deletion of the pod
  // the stored one replaced.
  static bool deleted_by(const Stored& pod, const rapidjson::Value& last_state);
  static void upserted(const Stored* before, const Stored& now, cluster::WatcherNotes& notes);
  static void deleted(const Key& key, const Stored& pod, cluster::WatcherNotes& notes);

  // The text of `pod` to store bound after a Binding of `uid` (empty: of
  // whatever uid) succeeded; empty when there is nothing to bind: the pod
  // is bound already, or it is another uid (the name was re-created since
  // the Binding was sent).
  static std::string text_to_bind(const Stored& pod, std::string_view uid);
  // Sets spec.nodeName (creating spec when needed).
  static void set_node_name(rapidjson::Document& pod, std::string_view node);
};

}  // namespace hami::kube
