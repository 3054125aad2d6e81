// NodeObjectCache: what earlier full-Nodes extender calls read from their
// Node objects, found again by the objects' exact JSON text.
//
// kube-scheduler sends every candidate Node object on every filter and
// prioritize call of an extender that is not nodeCacheCapable, and a Node
// changes far more rarely than pods are scheduled: most items of a call are
// byte for byte items of the call before. When the body at an item's start
// holds the text of a cached entry, the decode takes that entry's model and
// passes over the item's bytes instead of parsing them again.
//
// Contract:
//   - An entry keeps its text's length and a 128-bit digest of it, not the
//     text: the texts are most of a call's body, and keeping them doubled
//     what a call with new nodes holds at its peak. The digest is XXH3-128
//     with a seed drawn per cache from the system's random source: a text
//     that differs from an entry's matches it by accident with probability
//     about 2^-128, and collisions worked out against a known seed do not
//     carry over. XXH3 is not a cryptographic hash; whoever can send the
//     host Node objects can describe any node it likes anyway. A JSON
//     object ends where its own bytes say, so an entry matches at most one
//     item.
//   - Only texts of at least kKeyBytes are kept: lookups key on that many
//     leading bytes (a Node object's start holds its name and uid), and a
//     smaller object is cheap to parse.
//   - One entry per node name: remembering a node's new text replaces the
//     old one. Beyond the byte budget (each entry's model and decoded
//     devices, counted by cost_of) the entries remembered first go first.
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
#include "platform/text_hash.hpp"
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
    Entry(std::size_t size_, platform::TextDigest digest_, k8s::NodeModel model_, uint64_t key_,
          uint64_t serial_)
        : size(size_), digest(digest_), model(std::move(model_)), key(key_), serial(serial_) {}
    const std::size_t size;             // of the text
    const platform::TextDigest digest;  // of the text, with the cache's seed
    const k8s::NodeModel model;         // owns its strings
    const uint64_t key;                 // the hash of the text's first kKeyBytes
    const uint64_t serial;              // order of remembering, for eviction
    // The scheduler's decode of `model`, once a filter needed one (the
    // cluster state does not hold this node with these annotations).
    const scheduling::NodeDevicesMemo devices;
  };

  // A Node object's text and its owning model, to be remembered. The text
  // is read during remember() only.
  struct Fresh {
    std::string_view text;
    k8s::NodeModel model;
  };

  // The cache at one moment; never changes.
  class Snapshot {
   public:
    // The entry whose text the bytes from `at` begin with, or null. `end`
    // is the end of the text `at` points into. The entry lives as long as
    // the snapshot.
    //
    // `allowance` bounds the bytes a caller lets lookups hash for nothing:
    // an entry whose key matches is checked only if its size fits in what
    // is left, and a check that fails takes its size off. Texts sharing an
    // entry's first kKeyBytes but not its other bytes, or shorter than it,
    // would otherwise each cost a digest of that entry's whole size: a body
    // of many such items would be hashed over and over. A decode passes
    // twice its body's size: every item changed behind an unchanged key
    // stays within it.
    const Entry* find(const char* at, const char* end, std::size_t& allowance) const;

    // find() with no bound on the bytes hashed.
    const Entry* find(const char* at, const char* end) const;

    std::size_t size() const { return entries_.size(); }
    std::size_t bytes() const { return bytes_; }

   private:
    friend class NodeObjectCache;
    struct Slot {
      uint64_t key = 0;
      std::size_t size = 0;
      platform::TextDigest digest;
      const Entry* entry = nullptr;  // null: an empty slot
    };
    void index();

    uint64_t seed_ = 0;  // the cache's digest seed

    std::vector<std::shared_ptr<const Entry>> entries_;  // in serial order
    std::vector<Slot> slots_;  // open addressing, a power of two, at most half full
    std::size_t bytes_ = 0;
  };

  // `budget_bytes` 0 keeps nothing. The digest seed comes from
  // std::random_device.
  explicit NodeObjectCache(std::size_t budget_bytes);

  std::shared_ptr<const Snapshot> snapshot() const;

  // Keeps the models of the texts given (each a Node object's exact JSON
  // text), found by those texts; texts shorter than kKeyBytes are left out.
  void remember(std::vector<Fresh> nodes);

  std::size_t budget() const { return budget_; }

  // What an entry is counted as against the budget: its model and decoded
  // devices, estimated from the text it was read from. On the bench's
  // 8-GPU nodes of 5.4 KB the model's arena, its tables and the decoded
  // devices take 4.8 KB, so the estimate is high for nodes like these, and
  // the fixed part covers an entry's tables for small ones.
  static std::size_t cost_of(std::size_t text_size) { return text_size + kEntryBytes; }
  static constexpr std::size_t kEntryBytes = 2048;

 private:
  const std::size_t budget_;
  // Held while a call builds the next snapshot: calls that remember take
  // turns, and none loses another's nodes.
  std::mutex writer_;
  uint64_t serial_ = 0;  // guarded by writer_
  const uint64_t seed_;
  // Held only to read or swap current_: lookups never wait for a build.
  mutable std::mutex mutex_;
  std::shared_ptr<const Snapshot> current_;
};

}  // namespace hami::extender
