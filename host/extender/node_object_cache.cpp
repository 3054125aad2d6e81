#include "extender/node_object_cache.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <random>
#include <unordered_map>

#include "platform/text_hash.hpp"

namespace hami::extender {

namespace {

uint64_t key_of(const char* at) {
  return platform::text_hash(std::string_view(at, NodeObjectCache::kKeyBytes));
}

uint64_t random_seed() {
  std::random_device source;
  return (uint64_t{source()} << 32) ^ source();
}

}  // namespace

const NodeObjectCache::Entry* NodeObjectCache::Snapshot::find(const char* at,
                                                              const char* end) const {
  std::size_t unbounded = SIZE_MAX;
  return find(at, end, unbounded);
}

const NodeObjectCache::Entry* NodeObjectCache::Snapshot::find(const char* at, const char* end,
                                                              std::size_t& allowance) const {
  if (slots_.empty() || end - at < static_cast<std::ptrdiff_t>(kKeyBytes))
    return nullptr;
  const uint64_t key = key_of(at);
  const auto available = static_cast<std::size_t>(end - at);
  const std::size_t mask = slots_.size() - 1;
  // The slot holds the text's size and digest: neither a miss nor a hit
  // touches an entry.
  for (std::size_t i = key & mask;; i = (i + 1) & mask) {
    const Slot& slot = slots_[i];
    if (slot.entry == nullptr)
      return nullptr;
    if (slot.key != key || slot.size > available || slot.size > allowance)
      continue;
    if (platform::text_digest(std::string_view(at, slot.size), seed_) == slot.digest)
      return slot.entry;
    allowance -= slot.size;
  }
}

void NodeObjectCache::Snapshot::index() {
  bytes_ = 0;
  for (const auto& e : entries_)
    bytes_ += cost_of(e->size);
  slots_.assign(std::bit_ceil(std::max<std::size_t>(16, 2 * entries_.size())), Slot{});
  const std::size_t mask = slots_.size() - 1;
  for (const auto& e : entries_) {
    std::size_t i = e->key & mask;
    while (slots_[i].entry != nullptr)
      i = (i + 1) & mask;
    slots_[i] = Slot{e->key, e->size, e->digest, e.get()};
  }
}

NodeObjectCache::NodeObjectCache(std::size_t budget_bytes)
    : budget_(budget_bytes), seed_(random_seed()) {
  auto empty = std::make_shared<Snapshot>();
  empty->seed_ = seed_;
  current_ = std::move(empty);
}

std::shared_ptr<const NodeObjectCache::Snapshot> NodeObjectCache::snapshot() const {
  const std::lock_guard lock(mutex_);
  return current_;
}

void NodeObjectCache::remember(std::vector<Fresh> nodes) {
  if (budget_ == 0)
    return;
  std::erase_if(nodes, [this](const Fresh& f) {
    return f.text.size() < kKeyBytes || cost_of(f.text.size()) > budget_;
  });
  if (nodes.empty())
    return;
  const std::lock_guard writing(writer_);
  const std::shared_ptr<const Snapshot> current = snapshot();
  std::unordered_map<std::string_view, const Entry*> known;
  known.reserve(current->entries_.size());
  for (const auto& e : current->entries_)
    known[e->model.name()] = e.get();
  // The last text given for a name wins; a text the cache already holds
  // (a concurrent call remembered it) is not added again.
  std::vector<platform::TextDigest> digests;
  digests.reserve(nodes.size());
  std::unordered_map<std::string_view, std::size_t> added;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    digests.push_back(platform::text_digest(nodes[i].text, seed_));
    const auto same = known.find(nodes[i].model.name());
    if (same != known.end() && same->second->size == nodes[i].text.size() &&
        same->second->digest == digests[i])
      continue;
    added[nodes[i].model.name()] = i;
  }
  if (added.empty())
    return;
  auto next = std::make_shared<Snapshot>();
  next->seed_ = seed_;
  next->entries_.reserve(current->entries_.size() + added.size());
  for (const auto& e : current->entries_) {
    if (!added.contains(e->model.name()))
      next->entries_.push_back(e);
  }
  // Entries sharing a key with a new one: at most kMaxPerKey stay, the
  // newest. Only new keys can go over, so only theirs are counted.
  std::unordered_map<uint64_t, std::size_t> per_key;  // key → entries with it
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto mine = added.find(nodes[i].model.name());
    if (mine == added.end() || mine->second != i)
      continue;
    const uint64_t key = key_of(nodes[i].text.data());
    per_key[key] = 0;
    next->entries_.push_back(std::make_shared<const Entry>(
        nodes[i].text.size(), digests[i], std::move(nodes[i].model), key, ++serial_));
  }
  std::size_t bytes = 0;
  for (const auto& e : next->entries_) {
    bytes += cost_of(e->size);
    if (const auto crowded = per_key.find(e->key); crowded != per_key.end())
      ++crowded->second;
  }
  // Oldest first out: over a key's bound, then down to the budget.
  std::vector<std::shared_ptr<const Entry>> kept;
  kept.reserve(next->entries_.size());
  for (auto& e : next->entries_) {
    const auto crowded = per_key.find(e->key);
    if (crowded != per_key.end() && crowded->second > kMaxPerKey) {
      --crowded->second;
      bytes -= cost_of(e->size);
      continue;
    }
    if (bytes > budget_) {
      bytes -= cost_of(e->size);
      continue;
    }
    kept.push_back(std::move(e));
  }
  next->entries_ = std::move(kept);
  next->index();
  const std::lock_guard lock(mutex_);
  current_ = std::move(next);
}

}  // namespace hami::extender
