// FileClusterState: the embedded `file` backend. Loads a snapshot of Nodes,
// Pods, ResourceQuotas and Namespaces and keeps every write in memory, so the
// host runs (demo, tests, simulations) with no cluster at all.
//
// Snapshot format: YAML (one or more documents) or JSON. Each document is a
// Kubernetes object with `kind`, a `List`/`<Kind>List` with `items` (what
// `kubectl get nodes,pods,resourcequotas,namespaces -A -o yaml` prints), or a
// sequence of objects. Objects of other kinds are ignored. Pods without a
// uid get a stable one derived from namespace/name; objects without a
// resourceVersion get one.
//
// Writes bump a store-wide revision and set the object's resourceVersion to
// it, so conditional node writes (the node lock) behave like the API
// server's; as there, a pod patch that changes nothing writes nothing.
// Watchers are notified in write order (see ClusterState).
//
// Objects are kept as their compact JSON text beside the record built from
// them, and parsed again only when written. A thousand-node snapshot held
// as one DOM per object took ~30 MB (each document's pool reserves 64 KiB)
// for 5.6 MB of JSON; as text it is about the size of the file.
//
// Loading is in file_cluster_load.cpp, the ClusterState writes (and their
// preconditions) in file_cluster_writes.cpp, the rest in file_cluster.cpp.
#pragma once

#include <rapidjson/document.h>

#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cluster/change_feed.hpp"
#include "cluster/cluster_state.hpp"

namespace hami::cluster {

// A snapshot that cannot be loaded; the message names the file and object.
class SnapshotError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class FileClusterState final : public ClusterState {
 public:
  static constexpr size_t kEventCapacity = 1000;
  // Recorded events are also bounded by their text: a FilteringSucceed
  // message lists every candidate's score (~19 KB for 1,000 nodes), and a
  // thousand of them would hold ~19 MB. The newest event is always kept.
  static constexpr size_t kEventBytes = 1024 * 1024;

  FileClusterState();
  ~FileClusterState() override;

  // Throws SnapshotError.
  static std::unique_ptr<FileClusterState> load(const std::filesystem::path& file);
  // `origin` names the text in error messages.
  static std::unique_ptr<FileClusterState> from_text(std::string_view text,
                                                     std::string_view origin);

  // Adds or replaces one object by kind (Node, Pod, ResourceQuota,
  // Namespace); other kinds are ignored. Throws SnapshotError when the
  // object is malformed. Watchers are notified; a Pod replacing a stored
  // one of another uid is told as pod_deleted(old) then pod_upserted(new).
  void upsert(const rapidjson::Value& object, std::string_view origin = "object");
  void delete_node(std::string_view name);
  void delete_pod(std::string_view namespace_, std::string_view name);

  // The Events recorded so far (the newest kEventCapacity, and no more
  // than kEventBytes of text), oldest first.
  std::vector<Event> events() const;
  // The current state as a JSON `List` of every object (nodes, pods,
  // quotas, namespaces), compact.
  std::string to_json() const;

  // ClusterState
  std::shared_ptr<const k8s::NodeModel> node(std::string_view name) const override;
  std::vector<std::shared_ptr<const k8s::NodeModel>> nodes() const override;
  std::shared_ptr<const PodRecord> pod(std::string_view namespace_,
                                       std::string_view name) const override;
  std::vector<std::shared_ptr<const PodRecord>> pods() const override;
  std::vector<ResourceQuotaRecord> quotas() const override;
  std::vector<NamespaceRecord> namespaces() const override;
  void watch(ClusterWatcher& watcher) override;
  void unwatch(ClusterWatcher& watcher) override;
  void patch_pod_metadata(std::string_view namespace_, std::string_view name,
                          const PodMetadataPatch& patch,
                          std::optional<std::string_view> expected_uid) override;
  void patch_node_annotations(std::string_view node, const std::vector<MetadataWrite>& annotations,
                              std::optional<std::string_view> expected_resource_version) override;
  void bind(std::string_view namespace_, std::string_view name, std::string_view uid,
            std::string_view node) override;
  void record_event(const Event& event) override;

 private:
  // `json`: the object as compact JSON, normalised (kind, resourceVersion,
  // a pod's namespace and uid filled in).
  struct StoredNode {
    std::string json;
    std::shared_ptr<const k8s::NodeModel> model;
  };
  struct StoredPod {
    std::string json;
    std::shared_ptr<const PodRecord> record;
  };
  struct StoredQuota {
    std::string json;
    ResourceQuotaRecord record;
  };
  struct StoredNamespace {
    std::string json;
    NamespaceRecord record;
  };
  using PodKey = std::pair<std::string, std::string>;  // namespace, name

  // Parses `text` in place (it is consumed); file_cluster_load.cpp.
  void load_text(std::string text, std::string_view origin);
  // Normalises `object` in place (allocating from `allocator`, the one of
  // its document), builds its record and stores its text.
  void add_object(rapidjson::Value& object, rapidjson::Document::AllocatorType& allocator,
                  std::string_view kind, std::string_view origin, WatcherNotes& notes);
  std::string next_revision();
  // The stored pod; throws ClusterError NotFound.
  StoredPod& stored_pod(std::string_view namespace_, std::string_view name);
  // Stores `doc`, an edit of `stored`'s text, as the pod's next revision;
  // throws ClusterError Invalid when the model rejects it.
  void store_pod_version(StoredPod& stored, rapidjson::Document& doc, WatcherNotes& notes);

  // Every write runs on the feed, so watchers see changes in the order
  // they were made.
  ChangeFeed feed_;
  mutable std::mutex mu_;  // guards everything below
  uint64_t revision_ = 0;
  std::map<std::string, StoredNode, std::less<>> nodes_;
  std::map<PodKey, StoredPod> pods_;
  std::map<PodKey, StoredQuota> quotas_;
  std::map<std::string, StoredNamespace, std::less<>> namespaces_;
  std::deque<Event> events_;
  size_t event_bytes_ = 0;
};

// Opens the snapshot backend: "file" loads `file` (an empty path is an
// empty cluster). "kubernetes" needs an API client and is built by the
// extender stack (kube/kube_cluster.hpp); here it throws
// std::invalid_argument saying so, as does any other source.
std::unique_ptr<ClusterState> open_cluster_state(std::string_view source,
                                                 const std::filesystem::path& file);

}  // namespace hami::cluster
