// Read access to the borrowed key/value arrays of hami_pod_view /
// hami_node_view / hami_container_view (annotations, labels, resource lists,
// env). Lookups are linear: the arrays are short and scanning them costs less
// than building an index per call.
#ifndef HAMI_DEVICES_COMMON_KV_LIST_HPP
#define HAMI_DEVICES_COMMON_KV_LIST_HPP

#include <cstddef>
#include <optional>
#include <string_view>

#include "hami/plugin.h"
#include "hami/plugin.hpp"
#include "text.hpp"

namespace hami::devices {

class KvList {
 public:
  KvList() = default;
  KvList(const hami_kv* items, std::size_t len) noexcept
      : items_(len == 0 ? nullptr : items), len_(len) {}

  // The value of `key` (exact, case-sensitive match). An empty key is never
  // present, so an unconfigured resource name never matches.
  std::optional<std::string_view> find(std::string_view key) const noexcept {
    if (key.empty())
      return std::nullopt;
    for (std::size_t i = 0; i < len_; ++i) {
      if (to_sv(items_[i].key) == key)
        return to_sv(items_[i].value);
    }
    return std::nullopt;
  }
  bool contains(std::string_view key) const noexcept { return find(key).has_value(); }
  std::size_t size() const noexcept { return len_; }

 private:
  const hami_kv* items_ = nullptr;
  std::size_t len_ = 0;
};

}  // namespace hami::devices

#endif  // HAMI_DEVICES_COMMON_KV_LIST_HPP
