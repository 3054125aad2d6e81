// ClusterState: everything the scheduling core reads from and writes to the
// cluster, behind one interface with two backends (the embedded `file`
// snapshot, and later the Kubernetes API server).
//
// Reads return immutable shared objects, so callers may keep them as long as
// they like; each read reflects the backend's state at that moment.
//
// Change feed: a ClusterWatcher registered with `watch` is told about every
// node, pod and quota change, in the order the changes were made, on the
// thread that made them, after the backend's own lock is released (a watcher
// may read the cluster state but must not write to it from the callback).
// `watch` first replays the current contents as upserts.
//
// Pods are identified by uid. When a pod's namespace/name comes to hold a
// pod of another uid (deleted and re-created under the same name, as a
// StatefulSet does, while the backend did not see the deletion), watchers
// get pod_deleted(<the old record>) before pod_upserted(<the new record>),
// so nothing keyed by uid keeps the old pod. A deletion a backend learns
// of from elsewhere (a watch event, a relist) removes only the uid it
// names: a late deletion of the old pod never removes the new one.
//
// Writes throw ClusterError (kind NotFound, Conflict, Invalid, Unavailable)
// and are visible to reads and watchers before they return.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "k8s/node.hpp"
#include "k8s/pod.hpp"

namespace hami::cluster {

enum class ErrorKind {
  NotFound,     // the object does not exist (HTTP 404)
  Conflict,     // precondition failed or already bound elsewhere (HTTP 409)
  Invalid,      // the write itself is malformed (HTTP 400/422)
  Unavailable,  // the backend cannot be reached (HTTP 5xx, timeouts), or
                // refused to serve the request (HTTP 401, 403, 429)
};

class ClusterError : public std::runtime_error {
 public:
  // `maybe_stored` defaults to whether the kind leaves a write's outcome
  // unknown (Unavailable: a 5xx or a timeout may come after the write was
  // stored; a refusal such as 403 or 429 says false explicitly).
  ClusterError(ErrorKind kind, const std::string& message)
      : ClusterError(kind, message, kind == ErrorKind::Unavailable) {}
  ClusterError(ErrorKind kind, const std::string& message, bool maybe_stored)
      : std::runtime_error(message), kind_(kind), maybe_stored_(maybe_stored) {}
  ErrorKind kind() const { return kind_; }
  // The failed write may nevertheless have been stored: its outcome is
  // unknown until the object is read again. False when the backend knows
  // nothing was written (a refusal, or a read-back that settled it).
  bool maybe_stored() const { return maybe_stored_; }

 private:
  ErrorKind kind_;
  bool maybe_stored_;
};

using KeyValues = std::vector<std::pair<std::string, std::string>>;

// A pod and the status facts the usage ledger needs.
struct PodRecord {
  std::shared_ptr<const k8s::PodModel> model;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string node_name;  // spec.nodeName, empty while unbound
  std::string resource_version;
  std::string phase;         // status.phase ("Pending", "Running", "Succeeded", "Failed", …)
  bool terminating = false;  // metadata.deletionTimestamp is set
  // Every init container has terminated with exit code 0 (HAMi shrinks the
  // pod's usage to its app containers then). False when there are none.
  bool init_containers_succeeded = false;
  // spec.schedulingGroup.podGroupName (gang scheduling), empty when unset.
  std::string pod_group_name;

  // Looks up an annotation (a label) in the model's view.
  std::optional<std::string_view> annotation(std::string_view key) const;
  std::optional<std::string_view> label(std::string_view key) const;
};

struct ResourceQuotaRecord {
  std::string namespace_;
  std::string name;
  KeyValues hard;  // spec.hard, quantities as text
};

struct NamespaceRecord {
  std::string name;
  KeyValues labels;
};

// One annotation or label change; nullopt removes the key.
struct MetadataWrite {
  std::string key;
  std::optional<std::string> value;
};

// A pod metadata write and its preconditions. The backend checks every
// precondition atomically with the write, where the object is stored (the
// Kubernetes backend sends them to the API server as JSON Patch `test`
// operations); one that fails is a Conflict and nothing is written.
struct PodMetadataPatch {
  std::vector<MetadataWrite> annotations;
  std::vector<MetadataWrite> labels;
  // metadata.resourceVersion must still be this one: the pod is exactly
  // the version the caller judged. Any write to the pod by anyone (a
  // status condition, another annotation) fails it.
  std::optional<std::string> expect_resource_version = std::nullopt;
  // These annotations (labels) must still have these values.
  KeyValues expect_annotations = {};
  KeyValues expect_labels = {};
  // These annotations (labels) must still be absent.
  std::vector<std::string> expect_absent_annotations = {};
  std::vector<std::string> expect_absent_labels = {};
  // The pod must still be unbound (no spec.nodeName) and not being deleted
  // (no metadata.deletionTimestamp).
  bool expect_unbound = false;
};

struct Event {
  std::string kind = "Pod";  // involvedObject.kind
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string type;    // "Normal" | "Warning"
  std::string reason;  // e.g. "FilteringSucceed"
  std::string message;
  std::string component;  // source.component / reportingComponent
};

// The first precondition of a pod write that `pod` does not meet, as the
// error text of its Conflict ("" when all hold): the uid (when
// `expected_uid` is set and not empty), then those of `patch`.
std::string unmet_precondition(const PodRecord& pod, const PodMetadataPatch& patch,
                               std::optional<std::string_view> expected_uid);

// Makes `patch` conditional on every key it writes (annotation or label)
// still holding what `pod` holds: that value, or nothing.
void expect_as_read(PodMetadataPatch& patch, const PodRecord& pod);

// The API server's Conflict text for a write whose resourceVersion
// precondition failed: `resource` ("pods", "nodes") `name` changed since it
// was read.
std::string modified_since_read(std::string_view resource, std::string_view name);

// Whether `pod` carries every annotation and label value `patch` writes (a
// removal: the key is absent).
bool carries(const PodRecord& pod, const PodMetadataPatch& patch);

class ClusterWatcher {
 public:
  virtual ~ClusterWatcher() = default;
  virtual void node_upserted(const std::shared_ptr<const k8s::NodeModel>& node) = 0;
  virtual void node_deleted(std::string_view name) = 0;
  virtual void pod_upserted(const std::shared_ptr<const PodRecord>& pod) = 0;
  virtual void pod_deleted(const std::shared_ptr<const PodRecord>& last_known) = 0;
  virtual void quotas_changed() = 0;
};

class ClusterState {
 public:
  virtual ~ClusterState() = default;

  // --- reads ---------------------------------------------------------------
  virtual std::shared_ptr<const k8s::NodeModel> node(std::string_view name) const = 0;
  virtual std::vector<std::shared_ptr<const k8s::NodeModel>> nodes() const = 0;
  virtual std::shared_ptr<const PodRecord> pod(std::string_view namespace_,
                                               std::string_view name) const = 0;
  virtual std::vector<std::shared_ptr<const PodRecord>> pods() const = 0;
  // Whether the pod exists now. The default asks pod(); a backend that
  // caches a remote source of truth confirms an absence there, so a cache
  // that has not seen a new pod yet is not mistaken for its deletion (the
  // node lock takes over a lock only when its owner is really gone). When
  // the answer cannot be had, the pod is assumed to exist.
  virtual bool pod_exists(std::string_view namespace_, std::string_view name) const {
    return pod(namespace_, name) != nullptr;
  }
  virtual std::vector<ResourceQuotaRecord> quotas() const = 0;
  virtual std::vector<NamespaceRecord> namespaces() const = 0;

  // --- change feed ---------------------------------------------------------
  // Registers `watcher` (which must outlive the registration or be removed
  // with `unwatch` first) and replays the current nodes, pods and quotas.
  virtual void watch(ClusterWatcher& watcher) = 0;
  virtual void unwatch(ClusterWatcher& watcher) = 0;

  // --- writes --------------------------------------------------------------
  // The pod as the source of truth has it now, not as a cache last saw it
  // (nullptr: it does not exist). The default asks pod(); a backend that
  // caches a remote source reads it there (and refreshes its cache), and
  // throws ClusterError Unavailable when it cannot. Used to settle a write
  // whose outcome is unknown, and to judge a precondition the cache may
  // have wrong.
  virtual std::shared_ptr<const PodRecord> pod_live(std::string_view namespace_,
                                                    std::string_view name) {
    return pod(namespace_, name);
  }
  // The same for a node.
  virtual std::shared_ptr<const k8s::NodeModel> node_live(std::string_view name) {
    return node(name);
  }

  // Patches metadata.annotations / metadata.labels of a pod, if every
  // precondition of `patch` holds. When `expected_uid` is set (and not
  // empty) the pod's uid must be it: the check is made where the pod is
  // stored, so a pod re-created under the same name is never written.
  // A failed precondition: Conflict.
  virtual void patch_pod_metadata(std::string_view namespace_, std::string_view name,
                                  const PodMetadataPatch& patch,
                                  std::optional<std::string_view> expected_uid = std::nullopt) = 0;

  // Merge-patches node annotations. With `expected_resource_version` set the
  // write is conditional (Conflict when the node changed since it was read):
  // the node lock relies on it.
  virtual void patch_node_annotations(
      std::string_view node, const std::vector<MetadataWrite>& annotations,
      std::optional<std::string_view> expected_resource_version = std::nullopt) = 0;

  // Creates the pod's Binding to `node`. Conflict when the pod's uid differs
  // from `uid` (if non-empty) or it is already assigned to another node;
  // binding again to the same node succeeds.
  virtual void bind(std::string_view namespace_, std::string_view name, std::string_view uid,
                    std::string_view node) = 0;

  // Records an Event; failures are swallowed (events are best effort).
  virtual void record_event(const Event& event) = 0;
};

}  // namespace hami::cluster
