// The kube-scheduler extender wire types (k8s.io/kube-scheduler/extender/v1)
// as kube-scheduler speaks them: Go field names as keys (PascalCase, no json
// tags), read case-insensitively like Go's encoding/json (a later duplicate
// key wins), `null` for nil pointers, all keys always written.
//
//   ExtenderArgs          {"Pod": Pod|null, "Nodes": NodeList|null, "NodeNames": [string]|null}
//   ExtenderFilterResult  {"Nodes", "NodeNames", "FailedNodes", "FailedAndUnresolvableNodes",
//   "Error"} HostPriorityList      [{"Host": string, "Score": int64}, ...] ExtenderBindingArgs
//   {"PodName", "PodNamespace", "PodUID", "Node"} ExtenderBindingResult {"Error": string}
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "extender/node_object_cache.hpp"

namespace hami::extender {

// A body that is not the expected type. The message reads like Go's
// encoding/json error, e.g.
//   json: cannot unmarshal string into Go struct field ExtenderArgs.NodeNames of type []string
class DecodeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Which parts of each Nodes.items element a decode keeps in the document.
enum class NodeFields {
  all,  // everything: the nodes can be re-serialised from the document
  // What k8s::NodeModel reads (metadata name, uid, resourceVersion,
  // annotations and labels; status allocatable and capacity), and at the
  // top level only Pod, Nodes.items and NodeNames. A thousand full Node
  // objects are mostly images, conditions and managed fields the host never
  // reads; building them into the document cost time and memory.
  // Replies echo nodes from their text (node_texts), never from this
  // document.
  model,
};

// The decoded body. It owns the body and everything points into it or into
// `doc`, so it can neither be copied nor moved; decode_extender_args returns
// it by guaranteed copy elision, and callers that hand it on share it.
struct ExtenderArgs {
  // Parses `body` (taken, not copied). Throws DecodeError. With
  // NodeFields::model and a `cache`, a Nodes.items element whose text the
  // cache holds is not parsed: its document value is an empty object and
  // known_nodes gives its model.
  explicit ExtenderArgs(std::string body, NodeFields fields = NodeFields::all,
                        const NodeObjectCache* cache = nullptr);
  ExtenderArgs(const ExtenderArgs&) = delete;
  ExtenderArgs& operator=(const ExtenderArgs&) = delete;

  // The request as received. Never modified: the texts below echo it.
  const std::string body;

 private:
  // The document's strings, decoded out of `body`.
  std::unique_ptr<char[]> strings_;

 public:
  rapidjson::Document doc;
  const rapidjson::Value* pod = nullptr;               // nullptr: missing or null
  const rapidjson::Value* nodes = nullptr;             // the NodeList; nullptr: missing or null
  std::vector<const rapidjson::Value*> node_items;     // Nodes.items
  std::optional<std::vector<std::string>> node_names;  // nullopt: missing or null
  // The text in `body` of the NodeList `nodes` and of each node_items
  // element (one per element, always), so a reply can echo nodes byte for
  // byte instead of re-serialising megabytes of them. Empty nodes_text: no
  // NodeList.
  std::string_view nodes_text;
  std::vector<std::string_view> node_texts;
  // Frees the document and the strings decoded into it, for a caller that
  // has copied what it needs: pod, nodes and node_items are cleared. The
  // body and the texts into it (nodes_text, node_texts), node_names and
  // the cache entries stay. A full-Nodes call that copies its new nodes
  // into the cache no longer holds their parsed form beside those copies.
  void drop_document();

  // The node cache as the decode saw it (null without one): it keeps the
  // entries known_nodes points to.
  std::shared_ptr<const NodeObjectCache::Snapshot> node_cache;
  // One per node_items element: the cache's entry for its text, or null
  // when it was parsed into the document.
  std::vector<const NodeObjectCache::Entry*> known_nodes;
};

// Parses an ExtenderArgs body. Throws DecodeError.
ExtenderArgs decode_extender_args(std::string body, NodeFields fields = NodeFields::all,
                                  const NodeObjectCache* cache = nullptr);

struct ExtenderBindingArgs {
  std::string pod_name;
  std::string pod_namespace;
  std::string pod_uid;
  std::string node;
};

// Throws DecodeError.
ExtenderBindingArgs decode_binding_args(std::string_view body);

struct FilterResultOut {
  // Exactly one of these is written as non-null by the filter: the node
  // list (full Nodes mode; items are JSON values, copied verbatim) or the
  // names. Both null means "no node".
  const rapidjson::Value* nodes_list = nullptr;  // echo this NodeList as is
  std::optional<std::vector<const rapidjson::Value*>>
      node_items;  // write {"metadata":{},"items":[...]}
  // The same, each item given as raw JSON text (echoed byte for byte).
  std::optional<std::vector<std::string_view>> node_texts;
  // The text node_texts lie in (the request body), when they all do: two
  // texts that follow each other in it, with only whitespace and one comma
  // between them, are written as one slice of it, separator included.
  std::string_view node_texts_source;
  // The NodeList given as raw JSON text (echoed byte for byte).
  std::optional<std::string_view> nodes_text;
  std::optional<std::vector<std::string>> node_names;
  std::map<std::string, std::string> failed;        // null when empty
  std::map<std::string, std::string> unresolvable;  // null when empty
  std::string error;
};

std::string encode_filter_result(const FilterResultOut& result);

// The same text in three parts, so that megabytes of echoed nodes are sent
// from where they are instead of being copied into the reply: `head`, then
// every view in order (the raw texts given in the FilterResultOut and
// separators in static storage), then `trailer`.
struct EncodedFilterResult {
  std::string head;
  std::vector<std::string_view> views;
  std::string trailer;

  std::string joined() const;
};
EncodedFilterResult encode_filter_result_parts(const FilterResultOut& result);

struct HostPriority {
  std::string host;
  int64_t score = 0;
};
std::string encode_host_priority_list(const std::vector<HostPriority>& list);

std::string encode_binding_result(std::string_view error);

}  // namespace hami::extender
