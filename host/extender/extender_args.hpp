// The ExtenderArgs body kube-scheduler sends to /filter and /prioritize:
//   {"Pod": Pod|null, "Nodes": NodeList|null, "NodeNames": [string]|null}
// decoded into a RapidJSON document that keeps what the host reads.
#pragma once

#include <rapidjson/document.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "extender/go_json.hpp"
#include "extender/node_object_cache.hpp"

namespace hami::extender {

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

}  // namespace hami::extender
