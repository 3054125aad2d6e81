// LruMap: a map of at most `capacity` entries that forgets the least
// recently used one to make room (k8s.io/utils/lru, which client-go's event
// caches use). find() and put() count as a use. Not thread-safe.
#pragma once

#include <cstddef>
#include <functional>
#include <list>
#include <optional>
#include <unordered_map>
#include <utility>

namespace hami::kube {

template <typename Key, typename Value, typename Hash = std::hash<Key>>
class LruMap {
 public:
  using Entry = std::pair<Key, Value>;

  explicit LruMap(size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

  // The value of `key`, now the most recently used; null when absent.
  Value* find(const Key& key) {
    const auto it = index_.find(key);
    if (it == index_.end())
      return nullptr;
    order_.splice(order_.begin(), order_, it->second);
    return &it->second->second;
  }

  // Stores `value` under `key` as the most recently used entry. Returns the
  // least recently used entry when it had to go to make room.
  std::optional<Entry> put(const Key& key, Value value) {
    if (Value* existing = find(key)) {
      *existing = std::move(value);
      return std::nullopt;
    }
    order_.emplace_front(key, std::move(value));
    index_.emplace(key, order_.begin());
    if (order_.size() <= capacity_)
      return std::nullopt;
    Entry evicted = std::move(order_.back());
    index_.erase(evicted.first);
    order_.pop_back();
    return evicted;
  }

  // Removes every entry for which `drop(key, value)` is true, visiting the
  // least recently used first; the others keep their order.
  template <typename Drop>
  void erase_if(Drop drop) {
    for (auto it = order_.end(); it != order_.begin();) {
      --it;
      if (drop(std::as_const(it->first), it->second)) {
        index_.erase(it->first);
        it = order_.erase(it);
      }
    }
  }

  // Visits every entry, least recently used first, without counting a use.
  template <typename Visit>
  void for_each(Visit visit) {
    for (auto it = order_.rbegin(); it != order_.rend(); ++it)
      visit(std::as_const(it->first), it->second);
  }

  size_t size() const { return order_.size(); }
  size_t capacity() const { return capacity_; }

 private:
  size_t capacity_;
  std::list<Entry> order_;  // most recently used first
  std::unordered_map<Key, typename std::list<Entry>::iterator, Hash> index_;
};

}  // namespace hami::kube
