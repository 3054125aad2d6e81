// NodeObjectCache: Node objects of earlier full-Nodes extender calls, kept
// as their exact JSON text and the model built from it.
//
// kube-scheduler sends every candidate Node object on every filter and
// prioritize call of an extender that is not nodeCacheCapable, and a Node
// changes far more rarely than pods are scheduled: most items of a call are
// byte for byte items of the call before. When the body at an item's start
// holds the text of a cached entry, the decode takes that entry's model and
// passes over the item's bytes instead of parsing them again.
//
// Contract:
//   - A hit is exact: the cached text compared byte for byte. A JSON object
//     ends where its own bytes say, so an entry matches at most one item,
//     and it matches only an item that would decode to the same model.
//   - Only texts of at least kKeyBytes are kept: lookups key on that many
//     leading bytes (a Node object's start holds its name and uid), and a
//     smaller object is cheap to parse.
//   - One entry per node name: remembering a node's new text replaces the
//     old one. Beyond the byte budget (texts plus models and decoded
//     devices, counted as twice the text) the entries remembered first go
//     first.
//   - Lookups read an immutable Snapshot without locking; remember() builds
//     the next snapshot. A call holds one snapshot from its decode to its
//     reply, and with it every entry it matched.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "k8s/node.hpp"
#include "scheduling/node_devices.hpp"

namespace hami::extender {

class NodeObjectCache {
 public:
  // Leading bytes a lookup keys on; shorter texts are not kept.
  static constexpr std::size_t kKeyBytes = 256;
  // Entries kept with the same key: many nodes whose first kKeyBytes agree
  // would cost a comparison each per lookup.
  static constexpr std::size_t kMaxPerKey = 4;

  struct Entry {
    Entry(std::string text_, k8s::NodeModel model_, uint64_t key_, uint64_t serial_)
        : text(std::move(text_)), model(std::move(model_)), key(key_), serial(serial_) {}
    const std::string text;
    const k8s::NodeModel model;  // owns its strings
    const uint64_t key;          // the hash of the text's first kKeyBytes
    const uint64_t serial;       // order of remembering, for eviction
    // The scheduler's decode of `model`, once a filter needed one (the
    // cluster state does not hold this node with these annotations).
    const scheduling::NodeDevicesMemo devices;
  };

  // A Node object's text and its owning model, to be remembered.
  struct Fresh {
    std::string text;
    k8s::NodeModel model;
  };

  // The cache at one moment; never changes.
  class Snapshot {
   public:
    // The entry whose text the bytes from `at` begin with, or null. `end`
    // is the end of the text `at` points into. The entry lives as long as
    // the snapshot.
    const Entry* find(const char* at, const char* end) const;

    std::size_t size() const { return entries_.size(); }
    std::size_t bytes() const { return bytes_; }

   private:
    friend class NodeObjectCache;
    struct Slot {
      uint64_t key = 0;
      const char* text = nullptr;  // null: an empty slot
      std::size_t size = 0;
      const Entry* entry = nullptr;
    };
    void index();

    std::vector<std::shared_ptr<const Entry>> entries_;  // in serial order
    std::vector<Slot> slots_;  // open addressing, a power of two, at most half full
    std::size_t bytes_ = 0;
  };

  // `budget_bytes` 0 keeps nothing.
  explicit NodeObjectCache(std::size_t budget_bytes);

  std::shared_ptr<const Snapshot> snapshot() const;

  // Keeps the texts given (each a Node object's exact JSON text) with their
  // models; texts shorter than kKeyBytes are left out.
  void remember(std::vector<Fresh> nodes);

  std::size_t budget() const { return budget_; }

  static std::size_t cost_of(std::size_t text_size) { return 2 * text_size; }

 private:
  const std::size_t budget_;
  // Held while a call builds the next snapshot: calls that remember take
  // turns, and none loses another's nodes.
  std::mutex writer_;
  uint64_t serial_ = 0;  // guarded by writer_
  // Held only to read or swap current_: lookups never wait for a build.
  mutable std::mutex mutex_;
  std::shared_ptr<const Snapshot> current_;
};

}  // namespace hami::extender
