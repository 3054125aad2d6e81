// MemoryClusterView: an in-memory AdmissionClusterView for tests.
// Thread-safe like the real one must be.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "admission/cluster_view.hpp"

namespace hami::admission::testing {

class MemoryClusterView final : public AdmissionClusterView {
 public:
  void set_quota(std::string ns, NamespaceQuota quota) {
    const std::lock_guard lock(mutex_);
    quotas_[std::move(ns)] = std::move(quota);
  }
  void set_label(const std::string& ns, const std::string& key, std::string value) {
    const std::lock_guard lock(mutex_);
    labels_[ns][key] = std::move(value);
  }

  std::optional<NamespaceQuota> quota(std::string_view ns) const override {
    const std::lock_guard lock(mutex_);
    const auto it = quotas_.find(ns);
    if (it == quotas_.end())
      return std::nullopt;
    return it->second;
  }

  std::optional<std::string> namespace_label(std::string_view ns,
                                             std::string_view key) const override {
    const std::lock_guard lock(mutex_);
    const auto n = labels_.find(ns);
    if (n == labels_.end())
      return std::nullopt;
    const auto l = n->second.find(key);
    if (l == n->second.end())
      return std::nullopt;
    return l->second;
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, NamespaceQuota, std::less<>> quotas_;
  std::map<std::string, std::map<std::string, std::string, std::less<>>, std::less<>> labels_;
};

}  // namespace hami::admission::testing
