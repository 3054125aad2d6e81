// NodeModel: a Kubernetes Node parsed once into owned strings, exposing the
// flat `hami_node_view` that device plugins read (name, annotations, labels,
// status.allocatable, status.capacity) plus the few metadata fields the host
// needs (uid, resourceVersion).
//
// Contract:
//   - The constructor validates types and throws hami::k8s::ObjectError with a
//     JSON-pointer-like path ("/metadata/annotations/x: must be a string")
//     for anything malformed. `null` is accepted wherever Go would decode a
//     nil map or an empty string.
//   - Quantities may be JSON strings or numbers (YAML snapshots write
//     `nvidia.com/gpu: 8`); numbers are kept as their JSON text.
//   - `view()` and every string_view returned stay valid for the lifetime of
//     the object, including after a move (the storage lives on the heap);
//     a borrowing model's also need its document alive.
//   - Immutable after construction; safe to share between threads.
#pragma once

#include <rapidjson/document.h>

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hami/objects.h"

namespace hami::k8s {

class NodeModel {
 public:
  explicit NodeModel(const rapidjson::Value& node);

  // A model whose strings are views into `node`'s document instead of
  // copies (numbers excepted): the document must outlive the model and keep
  // its strings where they are. For the thousand Node objects of a
  // full-Nodes extender call, which live only as long as their request,
  // the copies were more than half of building the models.
  struct Borrowing {};
  NodeModel(const rapidjson::Value& node, Borrowing);

  NodeModel(NodeModel&&) noexcept;
  NodeModel& operator=(NodeModel&&) noexcept;
  NodeModel(const NodeModel&) = delete;
  NodeModel& operator=(const NodeModel&) = delete;
  ~NodeModel();

  const hami_node_view& view() const;

  std::string_view name() const;
  std::string_view uid() const;
  std::string_view resource_version() const;

  // Value of one annotation / label, nullopt when absent.
  std::optional<std::string_view> annotation(std::string_view key) const;
  std::optional<std::string_view> label(std::string_view key) const;

  // All annotations in object order (keys unique); views into the model.
  std::span<const hami_kv> annotations() const;
  // One hash per annotation, in the same order: its key and value folded
  // with platform::hash_append. Computed with the model, so that a model
  // kept across calls (extender::NodeObjectCache) is fingerprinted without
  // reading its annotation values again.
  std::span<const uint64_t> annotation_hashes() const;

 private:
  NodeModel(const rapidjson::Value& node, bool borrow);

  struct Storage;
  std::unique_ptr<Storage> s_;
};

}  // namespace hami::k8s
